package testtree

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// TestParallel: two waiting tests per CPU; DefaultParallel leaves a
// -parallel the command line set alone.
func TestParallel(t *testing.T) {
	if got := WaitingParallel(); got != 2*runtime.GOMAXPROCS(0) {
		t.Errorf("WaitingParallel() = %d", got)
	}
	f := flag.Lookup("test.parallel")
	if f == nil {
		t.Skip("no test.parallel flag")
	}
	before := f.Value.String()
	set := false
	flag.Visit(func(g *flag.Flag) { set = set || g.Name == "test.parallel" })
	n, _ := strconv.Atoi(before)
	DefaultParallel(n + 7)
	after := f.Value.String()
	defer flag.Set("test.parallel", before)
	if set && after != before || !set && after == before {
		t.Errorf("-parallel set on the command line %v: %s before, %s after", set, before, after)
	}
}
