package probe

import (
	"context"
	"testing"

	"aorta-probe/internal/testtree"
)

// A cache file that is found but cannot be read (here: the run was
// cancelled before its hash; as root no permission bit can stop a read)
// gives status partial, the block's reason text and one top-level reason.
func TestRocFFTUnreadable(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "opt/rocm/lib/rocfft/rocfft_kernel_cache.db")
	s := testState(t, root)
	s.collector.rocm = func() rocmRoots { return classicRoots("/opt/rocm", "opt_rocm") }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.ctx = ctx
	c := collectRocFFTCatalog(s)
	k := c.KernelCache
	if c.Status != "partial" || !k.Present || k.SHA256 != nil || k.Size == nil || *k.Size != int64(len("opt/rocm/lib/rocfft/rocfft_kernel_cache.db")) ||
		*k.Reason != "cache file present but could not be hashed" {
		t.Errorf("block = %+v / %+v", c, k)
	}
	want := "rocfft_catalog.kernel_cache: present but unreadable at /opt/rocm/lib/rocfft/rocfft_kernel_cache.db"
	if len(s.reasons) != 1 || s.reasons[0] != want {
		t.Errorf("reasons = %q", s.reasons)
	}
}
