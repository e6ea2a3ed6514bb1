package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/machine"
)

// hipRuntime is a runtime predicate for the tests: libamdhip64-N, not -dev.
func hipRuntime(name string) bool {
	n, ok := strings.CutPrefix(name, "libamdhip64-")
	return ok && n != "" && n != "dev"
}

const dpkgText = "Package: libamdhip64-6\nStatus: deinstall ok config-files\nVersion: 6.0.0-1\n\n" +
	"Package: libamdhip64-dev\nStatus: install ok installed\nVersion: 5.2.3-8\n\n" +
	"Package: amdgpu-dkms\r\nStatus: install ok installed\r\nVersion: 1:6.8.5-1\r\n\r\n" +
	"Package: libamdhip64-5\nStatus: install ok installed\nVersion: 5.2.3-8\n\n" +
	"Package: zlib1g\nStatus: install ok installed\nVersion: 1:1.2.13\n"

// TestDpkgStatus: one pass keeps the names asked about and the first
// installed runtime stanza, skipping one not installed and the -dev
// package; a missing database is ErrRead.
func TestDpkgStatus(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "var/lib/dpkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), []byte(dpkgText), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := NewFS(machine.NewFS(root, "/", false)).DpkgStatus([]string{"amdgpu-dkms", "amdgpu-kmod"}, hipRuntime)
	want := DpkgStatus{Names: []string{"amdgpu-dkms"}, RuntimeName: "libamdhip64-5", RuntimeVersion: "5.2.3-8"}
	if err != nil || !reflect.DeepEqual(st, want) {
		t.Errorf("DpkgStatus = %+v, %v; want %+v", st, err, want)
	}
	missing, err := NewFS(machine.NewFS(t.TempDir(), "/", false)).DpkgStatus(nil, hipRuntime)
	if !errors.Is(err, ErrRead) || !errors.Is(err, fs.ErrNotExist) || missing.RuntimeVersion != "" {
		t.Errorf("no database: %+v, %v; want ErrRead over ErrNotExist", missing, err)
	}
}

// TestDpkgStatusTooLarge: a database larger than DpkgStatusMax is never
// read (a sparse file: no disk is used).
func TestDpkgStatusTooLarge(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "var/lib/dpkg/status")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, DpkgStatusMax+1); err != nil {
		t.Fatal(err)
	}
	_, err := NewFS(machine.NewFS(root, "/", false)).DpkgStatus(nil, hipRuntime)
	if !errors.Is(err, ErrRead) || !errors.Is(err, syscall.EFBIG) {
		t.Errorf("DpkgStatus = %v, want ErrRead over EFBIG", err)
	}
}

func TestParseDpkgStatus(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     DpkgStatus
	}{
		{"fixture", dpkgText, DpkgStatus{Names: []string{"amdgpu-dkms"}, RuntimeName: "libamdhip64-5", RuntimeVersion: "5.2.3-8"}},
		{"last stanza without a blank line", "Package: libamdhip64-6\nStatus: install ok installed\nVersion: 6.1", DpkgStatus{RuntimeName: "libamdhip64-6", RuntimeVersion: "6.1"}},
		{"no version", "Package: libamdhip64-6\nStatus: install ok installed\n\n", DpkgStatus{}},
		{"a huge line ends the stanza", "Package: libamdhip64-6\nStatus: install ok installed\n" + strings.Repeat("x", 20<<10) + "\nVersion: 6.1\n", DpkgStatus{}},
		{"empty", "", DpkgStatus{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseDpkgStatus([]byte(tc.in), []string{"amdgpu-dkms"}, hipRuntime); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseDpkgStatus = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func FuzzParseDpkgStatus(f *testing.F) {
	f.Add([]byte(dpkgText))
	f.Add([]byte("Package: libamdhip64-6\r\nVersion: \r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := ParseDpkgStatus(b, []string{"amdgpu"}, hipRuntime)
		if (st.RuntimeName == "") != (st.RuntimeVersion == "") || st.RuntimeName != "" && !hipRuntime(st.RuntimeName) {
			t.Fatalf("runtime %q %q", st.RuntimeName, st.RuntimeVersion)
		}
		for _, n := range st.Names {
			if !strings.HasPrefix(n, "amdgpu") {
				t.Fatalf("name %q kept", n)
			}
		}
	})
}
