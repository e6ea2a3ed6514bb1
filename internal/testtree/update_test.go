package testtree

import "flag"

// The -update flag is accepted by every package's tests; this package has
// nothing to rewrite.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")
