package testtree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTempDir: the directory is new and empty, on the memory file system
// where there is one, holds a tool that runs, and is gone once its test
// has ended.
func TestTempDir(t *testing.T) {
	var dir string
	t.Run("use", func(t *testing.T) {
		dir = TempDir(t)
		if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
			t.Fatalf("TempDir %s: %d entries, %v", dir, len(ents), err)
		}
		if base := memoryFS(); base != "" {
			var st syscall.Statfs_t
			if !strings.HasPrefix(dir, base+"/aorta-probe-TestTempDir_use-") || syscall.Statfs(dir, &st) != nil || st.Type != 0x01021994 {
				t.Errorf("TempDir %s: not a tmpfs directory under %s", dir, base)
			}
		} else {
			t.Logf("no memory file system: TempDir is t.TempDir (%s)", dir)
		}
		tool := filepath.Join(dir, "sub", "tool")
		Make(t, dir, "sub/")
		if err := WriteFile(tool, []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(tool).Output(); err != nil || string(out) != "ran\n" {
			t.Errorf("a tool in TempDir: %q %v", out, err)
		}
	})
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is left after its test: %v", dir, err)
	}
}

// TestUsableMemoryFS: a tmpfs mounted without noexec is usable; the
// disk, procfs and a missing directory are not.
func TestUsableMemoryFS(t *testing.T) {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err == nil && st.Type == 0x01021994 && st.Flags&0x9 == 0 && !usableMemoryFS("/dev/shm") {
		t.Errorf("/dev/shm is a writable tmpfs (free %d blocks of %d bytes) but not usable", st.Bavail, st.Bsize)
	}
	for _, dir := range []string{"/proc", "/nonexistent", "/"} {
		if syscall.Statfs(dir, &st) == nil && st.Type == 0x01021994 {
			continue // a root on tmpfs (a container) is one
		}
		if usableMemoryFS(dir) {
			t.Errorf("%s is not a tmpfs, but usable", dir)
		}
	}
}

func TestDirName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"TestX", "TestX"},
		{"TestX/a b:c", "TestX_a_b_c"},
		{"TestX/é", "TestX__"},
		{strings.Repeat("a", 80), strings.Repeat("a", 64)},
		{"", ""},
	} {
		if got := dirName(tc.in); got != tc.want {
			t.Errorf("dirName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
