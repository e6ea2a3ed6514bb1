package probe

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// TestReadDpkgStatus: one pass gives both readers their answer: the
// Package: names of amdgpu packages (dpkgKnows) and the first installed HIP runtime stanza
// (rocm_installs), skipping one not installed and the -dev package.
func TestReadDpkgStatus(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "var/lib/dpkg/")
	status := "Package: libamdhip64-6\nStatus: deinstall ok config-files\nVersion: 6.0.0-1\n\n" +
		"Package: libamdhip64-dev\nStatus: install ok installed\nVersion: 5.2.3-8\n\n" +
		"Package: amdgpu-dkms\r\nStatus: install ok installed\r\nVersion: 1:6.8.5-1\r\n\r\n" +
		"Package: libamdhip64-5\nStatus: install ok installed\nVersion: 5.2.3-8\n\n" +
		"Package: zlib1g\nStatus: install ok installed\nVersion: 1:1.2.13\n"
	if err := os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), []byte(status), 0o644); err != nil {
		t.Fatal(err)
	}
	st := readDpkgStatus(machine.NewFS(root, "/", false))
	// Only the names dpkgKnows is asked about (amdgpuPackages) are kept.
	want := dpkgStatus{names: []string{"amdgpu-dkms"}, hipName: "libamdhip64-5", hipVersion: "5.2.3-8"}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("readDpkgStatus = %+v, want %+v", st, want)
	}
	if got := dpkgKnows(st, []string{"amdgpu-dkms", "amdgpu-kmod"}); !got["amdgpu-dkms"] || got["amdgpu-kmod"] {
		t.Errorf("dpkgKnows = %v", got)
	}
	missing := readDpkgStatus(machine.NewFS(t.TempDir(), "/", false))
	if !missing.unknown || missing.hipVersion != "" {
		t.Errorf("no database: %+v, want unknown", missing)
	}
	if got := dpkgKnows(missing, []string{"amdgpu-kmod"}); !got["amdgpu-kmod"] {
		t.Errorf("dpkgKnows without a database = %v, want every candidate unknown", got)
	}
}
