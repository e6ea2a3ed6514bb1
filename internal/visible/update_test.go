package visible

import "flag"

// The -update flag is accepted by every package's tests, so that
// `go test ./... -update` rewrites the goldens (probe) and the published
// schema (schema) in one command; this package has nothing to rewrite.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")
