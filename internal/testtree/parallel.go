package testtree

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitingParallel is how many tests that call t.Parallel run at once in a
// package that calls DefaultParallel: 2 per CPU. Those tests mostly wait
// (for a sandbox, a daemon, a deadline, a child process); more would let
// the ones that compute (a real torch import, ROCm's own Python and Perl
// tools) slow each other down towards their hang guards on a loaded
// machine.
func WaitingParallel() int { return 2 * runtime.GOMAXPROCS(0) }

// DefaultParallel sets go test's -parallel (test.parallel) to n unless the
// command line set it; go test's own default is GOMAXPROCS, which on a
// 2-core machine lets two waiting tests overlap and no more
// (docs/design-notes.md, "Testing"). TestMain calls it before m.Run; it
// parses the command line first if nothing has.
func DefaultParallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && n > 0 {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
