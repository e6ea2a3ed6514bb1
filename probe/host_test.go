package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// TestGlibcBannerBounded: the libc.so.6 banner is looked for in the first
// libcScanBudget bytes only; a sparse multi-GiB file costs no more.
func TestGlibcBannerBounded(t *testing.T) {
	t.Parallel()
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
			testtree.Make(t, root, "lib/x86_64-linux-gnu/")
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

func TestScanLibcBanner(t *testing.T) {
	banner := "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n"
	for _, tc := range []struct {
		name, data, want string
	}{
		{"debian", "\x7fELF\x00junk\x00" + banner, "2.36"},
		{"straddles a chunk", strings.Repeat("x", 64<<10-20) + banner, "2.36"},
		{"ubuntu", "GNU C Library (Ubuntu GLIBC 2.35-0ubuntu3.8) stable release version 2.35.", "2.35"},
		{"three parts", "GNU C Library (GNU libc) release release version 2.28.9.", "2.28.9"},
		{"no banner", "musl libc (x86_64)\x00Version 1.2.4", ""},
		{"name without version", "GNU C Library\x00", ""},
	} {
		got, ok := scanLibcBanner(strings.NewReader(tc.data))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func FuzzScanLibcBanner(f *testing.F) {
	f.Add([]byte("GNU C Library (Debian GLIBC 2.36-9) stable release version 2.36."))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, ok := scanLibcBanner(strings.NewReader(string(b))); ok && v == "" {
			t.Fatal("empty version reported as found")
		}
	})
}
