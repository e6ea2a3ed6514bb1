package probe

// BuckOptions are the Buck2 inputs of context.md §20: --buck-target and the
// context it is resolved in.
type BuckOptions struct{}
