package probe

import (
	"context"
	"slices"
	"testing"

	"aorta-probe/internal/machine"
)

// TestCollectMIOpenEmptyRoot: with nothing installed under the roots,
// every field is null and each reason names the path it looked at.
func TestCollectMIOpenEmptyRoot(t *testing.T) {
	c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: t.TempDir(), Cwd: "/", Path: []string{}}})
	c.rocm = func() rocmRoots { return classicRoots("/opt/rocm-7.2.1", "ROCM_PATH") }
	s := &state{collector: c, name: "miopen"}
	if got := miopenDefaultDB(s); got != "/opt/rocm-7.2.1/share/miopen/db" {
		t.Errorf("default db %s", got)
	}
	m := collectMIOpen(s)
	if m.RocmReleaseTweak != nil || m.PackageVersion != nil || m.LibHash != nil || m.KernelDBRevision != nil {
		t.Errorf("block %+v", m)
	}
	want := []string{
		"miopen.rocm_release_tweak: /opt/rocm-7.2.1/include/miopen/version.h not readable",
		"miopen.package_version: /opt/rocm-7.2.1/include/miopen/version.h not readable",
		"miopen.lib_hash: /opt/rocm-7.2.1/lib/libMIOpen.so missing or unreadable",
		"miopen.kernel_db_revision: directory missing/unreadable or no .txt files under /opt/rocm-7.2.1/share/miopen/db",
	}
	if !slices.Equal(s.reasons, want) {
		t.Errorf("reasons\n got %q\nwant %q", s.reasons, want)
	}
}
