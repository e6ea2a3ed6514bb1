package probe

import (
	"time"

	"aorta-probe/buck"
)

// BuckOptions are the Buck2 inputs (docs/buck2.md#3-the-buck-blocks):
// --buck-target and the context it is resolved in.
type BuckOptions struct {
	// Target is --buck-target, verbatim; "" means not requested.
	Target string
	// Context is the validated invocation context (--buck-option, or the
	// grouped --buck-mode-file/--buck-config/--buck-modifier, or
	// --buck-default-context).
	Context buck.Context
	// Timeout bounds each buck2 cquery; zero means DefaultBuckTimeout.
	Timeout time.Duration
}

// DefaultBuckTimeout is the --buck-timeout default (docs/usage.md#flags).
const DefaultBuckTimeout = 10 * time.Second

func (o BuckOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultBuckTimeout
	}
	return o.Timeout
}
