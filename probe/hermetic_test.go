package probe

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// hermeticDir is a directory of symbolic links to every program of
// /usr/bin and /bin except the ROCm and hardware tools the probe looks up
// (hipconfig, rocm_agent_enumerator, rocminfo, lspci, …): tests that run a
// collection with their fakes put it on the search path instead of
// /usr/bin:/bin, so that they see only their fakes (and sh, python3,
// coreutils), also on a machine with Debian's ROCm packages. Made once per
// test process on first use; TestMain removes it.
var hermeticDir = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "aorta-probe-hermetic-bin-")
	if err != nil {
		return "", err
	}
	hermeticMade = dir
	for _, src := range []string{"/usr/bin", "/bin"} {
		entries, err := os.ReadDir(src)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !realROCmTool(e.Name()) {
				_ = os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
			}
		}
	}
	return dir, nil
})

var hermeticMade string

func TestMain(m *testing.M) {
	code := m.Run()
	if hermeticMade != "" {
		os.RemoveAll(hermeticMade)
	}
	os.Exit(code)
}

// realROCmTool: ROCm's own programs (hip*, roc*, amd*), rdhc and the NIC
// tools.
func realROCmTool(name string) bool {
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

// hermeticPath is dirs followed by the hermetic system bin.
func hermeticPath(t testing.TB, dirs ...string) []string {
	t.Helper()
	dir, err := hermeticDir()
	if err != nil {
		t.Fatalf("hermetic system bin: %v", err)
	}
	return append(dirs[:len(dirs):len(dirs)], dir)
}
