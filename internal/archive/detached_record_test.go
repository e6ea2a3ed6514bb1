package archive

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
)

// TestExportAbsorb: what a detached child's Recorder met (WatchDetached,
// Export) the probe's Recorder takes in (Absorb), so that the archive
// replays the child's reads as its own: the file only it read, the one
// it found missing; a path both read counts the reads of both.
func TestExportAbsorb(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sys/class/kfd/kfd/topology/nodes/0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "properties"), []byte("simd_count 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sys/class/kfd/kfd/topology/generation_id"), []byte("40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const props = "/sys/class/kfd/kfd/topology/nodes/0/properties"
	const gen = "/sys/class/kfd/kfd/topology/generation_id"

	child := machine.NewFS(root, "/", false)
	crc := WatchDetached(child, 1<<20)
	child.ReadFile(props, 1024)
	child.ReadFile(gen, 64)
	child.ReadFile("/sys/class/drm/renderD128/device/numa_node", 1024)
	exported := crc.Export()

	rc := NewRecorder(false)
	parent := machine.NewFS(root, "/", false)
	rc.Attach(machine.Seams{Root: root, Cwd: "/", Runner: echoRunner{},
		Env:      func(string) (string, bool) { return "", false },
		Uname:    func() (machine.Uname, error) { return machine.Uname{}, errors.New("no uname") },
		TempName: func(int) string { return "x" },
	}, parent, Policy{EnvAllowed: func(string) bool { return false }, RedactArgv: func(a []string) []string { return a }})
	parent.ReadFile(props, 1024)
	rc.Absorb(exported)
	if err := os.WriteFile(filepath.Join(dir, "properties"), []byte("changed since\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	a, err := ParseCapture(rc.Archive("test capture\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay(a, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := machine.NewFS(r.Dir(), "/", false)
	m.SetFaults(r.Faults())
	b, err := m.ReadFile(props, 1024)
	if string(b) != "simd_count 0\n" || err != nil {
		t.Errorf("the child's file replayed as %q, %s", b, golden.OrNull(&err))
	}
	if b, err := m.ReadFile(gen, 64); string(b) != "40\n" {
		t.Errorf("the file only the child read replayed as %q, %s", b, golden.OrNull(&err))
	}
	if _, err := m.ReadFile("/sys/class/drm/renderD128/device/numa_node", 1024); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the child's missing file replayed as %v", err)
	}
	var reads int
	for _, e := range exported.Entries {
		if e.Path == props {
			reads = e.Reads
		}
	}
	if reads != 1 || rc.entries[props].reads != 2 {
		t.Errorf("reads: child %d, probe after Absorb %d; want 1, 2", reads, rc.entries[props].reads)
	}
}
