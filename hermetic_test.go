package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// systemBin is a directory holding a symbolic link to every program of
// /usr/bin and /bin except the ROCm and hardware tools the probe looks up
// (realTool). Tests that mean fakes put it on PATH instead of /usr/bin:/bin:
// their shell scripts find sh, sleep, head and python3, and the probe finds
// only the test's fakes, also on a machine with Debian's ROCm packages
// installed (a real rocm_agent_enumerator there is a Python script started
// through `env python3`, which would run a test's fake python3).
// Built once per test process under buildDir.
var systemBin = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(buildDir, "system-bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	for _, src := range []string{"/usr/bin", "/bin"} {
		entries, err := os.ReadDir(src)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if realTool(e.Name()) {
				continue
			}
			// The first directory wins, as on PATH; a name already
			// linked (merged /usr) fails with EEXIST and is kept.
			_ = os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	return dir, nil
})

// realTool reports whether a program of the system is one the probe runs
// to describe ROCm or the hardware: ROCm's own (hipconfig, hipcc, rocminfo,
// rocm_agent_enumerator, rocm-smi, amd-smi, roc-obj …) and the NIC and
// health tools. None may answer a test that means its fakes.
func realTool(name string) bool {
	for _, p := range []string{"hip", "roc", "amd", "rdhc"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "lspci", "ethtool", "ibv_devices", "rdma", "nicctl":
		return true
	}
	return false
}

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
		if realTool(e.Name()) {
			t.Errorf("the hermetic bin holds %s", e.Name())
		}
	}
	for _, name := range []string{"hipconfig", "rocm_agent_enumerator", "rocminfo", "rocm-smi", "hipcc", "lspci"} {
		if !realTool(name) {
			t.Errorf("realTool(%q) is false", name)
		}
	}
}
