package e2e

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"aorta-probe/internal/testtree"
)

// systemBin is the hermetic system bin of the tests that mean their fakes
// (testtree.SystemBin), built once per test process under buildDir.
var systemBin = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(buildDir, "system-bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	return dir, testtree.SystemBin(dir)
})

// hermeticBin is systemBin for t, fatal when it cannot be built.
func hermeticBin(t *testing.T) string {
	t.Helper()
	dir, err := systemBin()
	if err != nil {
		t.Fatalf("building the hermetic system bin: %v", err)
	}
	return dir
}

// TestHermeticBin: the directory the fake-tool tests use instead of
// /usr/bin:/bin holds the shell and coreutils but no ROCm or hardware tool,
// whatever this machine has installed.
func TestHermeticBin(t *testing.T) {
	dir := hermeticBin(t)
	for _, want := range []string{"sh", "sleep", "env"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("%s missing from the hermetic bin: %v", want, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if testtree.RealTool(e.Name()) {
			t.Errorf("the hermetic bin holds %s", e.Name())
		}
	}
	for _, name := range []string{"hipconfig", "rocm_agent_enumerator", "rocminfo", "rocm-smi", "hipcc", "lspci"} {
		if !testtree.RealTool(name) {
			t.Errorf("testtree.RealTool(%q) is false", name)
		}
	}
}
