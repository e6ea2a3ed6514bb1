package testtree

import (
	"os"
	"path/filepath"
	"strings"
)

// SystemBin fills dir, which must exist, with a symbolic link to every
// program of /usr/bin and /bin except the ROCm and hardware tools the
// probe looks up (RealTool). Tests that mean their fakes put dir on PATH
// instead of /usr/bin:/bin: their scripts find sh, sleep, head and
// python3, and the probe finds only the fakes, also on a machine with
// Debian's ROCm packages installed (a real rocm_agent_enumerator there is
// a Python script started through `env python3`, which would run a test's
// fake python3). The first directory wins, as on PATH: a name already
// linked (merged /usr) is kept.
func SystemBin(dir string) error {
	for _, src := range []string{"/usr/bin", "/bin"} {
		entries, err := os.ReadDir(src)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if RealTool(e.Name()) {
				continue
			}
			err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
			if err != nil && !os.IsExist(err) {
				return err
			}
		}
	}
	return nil
}

// RealTool reports whether a program of the system is one the probe runs
// to describe ROCm or the hardware: ROCm's own (hipconfig, hipcc, rocminfo,
// rocm_agent_enumerator, rocm-smi, amd-smi, roc-obj …), rdhc, and the NIC
// tools. None may answer a test that means its fakes.
func RealTool(name string) bool {
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
