package probe

import (
	"os"
	"path/filepath"
	"testing"

	"aorta-probe/internal/testtree"
)

// TestAncestorProbe walks a fake /proc: the nearest ancestor running the
// probe itself (a link to the same file) or a byte-identical copy is
// found, a file of the same size but another first page is not, the walk
// ends at pid 1, at an unreadable stat, and after maxAncestors in a
// loop.
func TestAncestorProbe(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "self")
	probe := make([]byte, 8192)
	for i := range probe {
		probe[i] = byte(i)
	}
	other := append([]byte{0xff}, probe[1:]...)
	testtree.Files(t, dir, map[string]string{"self": string(probe), "copy": string(probe), "other": string(other), "shell": "#!/bin/sh\n"})
	proc := filepath.Join(dir, "proc")
	// process pid runs exe (a file of dir) and has parent ppid.
	process := func(pid, exe, ppid string) {
		d := filepath.Join(proc, pid)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, exe), filepath.Join(d, "exe")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "stat"), []byte(pid+" (a (b) c) S "+ppid+" 1 1 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	process("100", "shell", "90") // the wrapper
	process("90", "other", "80")  // same size, another build
	process("80", "copy", "70")   // a copy of the probe
	process("70", "self", "1")    // the probe itself
	process("60", "shell", "50")  // a chain without a probe
	process("50", "shell", "1")   //
	process("40", "shell", "41")  // a loop
	process("41", "shell", "40")  //
	process("30", "shell", "31")  // 31 has no stat
	for _, tc := range []struct {
		start, want int
	}{{100, 80}, {90, 80}, {70, 70}, {60, 0}, {40, 0}, {30, 0}, {1, 0}} {
		if got := ancestorProbe(proc, tc.start, self); got != tc.want {
			t.Errorf("from %d: %d, want %d", tc.start, got, tc.want)
		}
	}
	if got := ancestorProbe(proc, 100, filepath.Join(dir, "missing")); got != 0 {
		t.Errorf("an unreadable self: %d", got)
	}
}
