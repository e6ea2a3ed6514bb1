package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealTool: ROCm's, the hardware's and the NIC tools are real tools;
// the programs a fake needs are not.
func TestRealTool(t *testing.T) {
	for name, want := range map[string]bool{
		"hipconfig": true, "rocminfo": true, "rocm_agent_enumerator": true, "amd-smi": true, "rdhc": true,
		"lspci": true, "ethtool": true, "ibv_devices": true, "rdma": true, "nicctl": true,
		"sh": false, "sleep": false, "python3": false, "head": false, "chip": false,
	} {
		if got := RealTool(name); got != want {
			t.Errorf("RealTool(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestSystemBin: sh is linked, no real tool is, and a second fill keeps
// what is there.
func TestSystemBin(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		if err := SystemBin(dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sh")); err != nil {
		t.Errorf("sh: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if RealTool(e.Name()) {
			t.Errorf("real tool %s linked", e.Name())
		}
	}
}
