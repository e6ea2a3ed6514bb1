package probe

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"aorta-probe/internal/machine"
)

// TestGlibcBannerBounded: the libc.so.6 banner is looked for in the first
// libcScanBudget bytes only; a sparse multi-GiB file costs no more.
func TestGlibcBannerBounded(t *testing.T) {
	banner := "GNU C Library (Test GLIBC 2.99-1) stable release version 2.99."
	for _, tc := range []struct {
		name   string
		offset int64
		want   string
	}{
		{"banner at 1.6 MiB", 1600 << 10, "2.99"},
		{"banner after the budget", libcScanBudget + 1<<20, ""},
		{"no banner", -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			mkfiles(t, root, "lib/x86_64-linux-gnu/")
			f, err := os.Create(filepath.Join(root, "lib/x86_64-linux-gnu/libc.so.6"))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(4 << 30); err != nil { // sparse 4 GiB
				t.Skipf("no sparse 4 GiB file here: %v", err)
			}
			if tc.offset >= 0 {
				if _, err := f.WriteAt([]byte(banner), tc.offset); err != nil {
					t.Fatal(err)
				}
			}
			f.Close()
			start := time.Now()
			v, reason := glibcVersion(machine.NewFS(root, "/", false), "x86_64")
			t.Logf("4 GiB sparse libc.so.6: %v", time.Since(start))
			if v != tc.want || (v == "") != (reason != "") {
				t.Errorf("glibcVersion = %q, %q; want %q", v, reason, tc.want)
			}
		})
	}
}
