package fakeroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostile: inside the root every planted path is a link, absolute to
// the host or climbing out of the root with ".."; followed by the kernel,
// each reaches a host file carrying Marker.
func TestHostile(t *testing.T) {
	dir := t.TempDir()
	root, err := Hostile(dir)
	if err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "host")
	for _, tc := range []struct {
		link, file string
		abs        bool
	}{
		{"opt/rocm", "opt/rocm/.info/version", true},
		{"etc/hostname", "etc/hostname", false},
		{"proc", "proc/self/status", false},
		{"usr/lib/python3/dist-packages", "usr/lib/python3/dist-packages/torch/version.py", true},
	} {
		target, err := os.Readlink(filepath.Join(root, tc.link))
		if err != nil {
			t.Fatalf("%s: %v", tc.link, err)
		}
		if filepath.IsAbs(target) != tc.abs || !tc.abs && !strings.HasPrefix(target, "../") {
			t.Errorf("%s -> %s, want absolute %v", tc.link, target, tc.abs)
		}
		if tc.abs && !strings.HasPrefix(target, host+"/") {
			t.Errorf("%s -> %s, not into the host tree %s", tc.link, target, host)
		}
		b, err := os.ReadFile(filepath.Join(root, tc.file))
		if err != nil || !strings.Contains(string(b), Marker) {
			t.Errorf("%s through the link: %q %v", tc.file, b, err)
		}
	}
}
