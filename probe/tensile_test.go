package probe

import (
	"context"
	"slices"
	"testing"

	"aorta-probe/internal/machine"
)

// TestCollectTensileEmptyRoot: no Tensile package and no kernel files
// under either library's Tensile directory: both fields null; a package
// not installed is no reason (as in the Python probe), the missing
// kernel files are, naming both directories.
func TestCollectTensileEmptyRoot(t *testing.T) {
	c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: t.TempDir(), Cwd: "/", Path: []string{}}})
	c.rocm = func() rocmRoots { return classicRoots("/opt/rocm", "opt_rocm") }
	c.python = func() *pyFacts { return &pyFacts{outcome: pyOK} }
	s := &state{collector: c, name: "tensile"}
	tb := collectTensile(s)
	if tb.PackageVersion != nil || tb.KernelDBCombinedHash != nil {
		t.Errorf("block %+v", tb)
	}
	want := []string{
		"tensile.kernel_db_combined_hash: no kernel files found, or the listing was incomplete, under /opt/rocm" + hipblasltLib.tensile + " or /opt/rocm" + rocblasLib.tensile,
	}
	if !slices.Equal(s.reasons, want) {
		t.Errorf("reasons\n got %q\nwant %q", s.reasons, want)
	}
}
