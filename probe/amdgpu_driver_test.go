package probe

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// TestDpkgStatusNotRegular: a FIFO or a character device in place of dpkg's
// status database is "unknown" (dpkg-query decides), never a hang.
func TestDpkgStatusNotRegular(t *testing.T) {
	cands := []string{"amdgpu-dkms", "amdgpu"}
	t.Run("fifo", func(t *testing.T) {
		root := t.TempDir()
		testtree.Make(t, root, "var/lib/dpkg/")
		if err := syscall.Mkfifo(filepath.Join(root, "var/lib/dpkg/status"), 0o644); err != nil {
			t.Fatal(err)
		}
		// A writer that never writes: a blocking open would succeed, a
		// blocking read would wait for ever.
		w, err := os.OpenFile(filepath.Join(root, "var/lib/dpkg/status"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		within(t, "dpkgKnows on a FIFO", func() {
			if got := dpkgKnows(readDpkgStatus(machine.NewFS(root, "/", false)), cands); !got["amdgpu"] || !got["amdgpu-dkms"] {
				t.Errorf("dpkgKnows = %v, want every candidate unknown", got)
			}
		})
	})
	t.Run("dev-zero", func(t *testing.T) {
		root := t.TempDir()
		testtree.Make(t, root, "var/lib/dpkg/")
		if err := syscall.Mknod(filepath.Join(root, "var/lib/dpkg/status"), syscall.S_IFCHR|0o666, 1<<8|5); err != nil {
			t.Skipf("mknod /dev/zero not permitted here (%v)", err)
		}
		within(t, "dpkgKnows on /dev/zero", func() {
			if got := dpkgKnows(readDpkgStatus(machine.NewFS(root, "/", false)), cands); !got["amdgpu"] {
				t.Errorf("dpkgKnows = %v, want every candidate unknown", got)
			}
		})
	})
}

// TestDpkgKnows: a candidate is known where a Package: name starts with
// it, and every candidate is when the database could not be read.
func TestDpkgKnows(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "var/lib/dpkg/")
	status := "Package: amdgpu-dkms\nStatus: install ok installed\nVersion: 1:6.8.5-1\n\n" +
		"Package: libamdhip64-5\nStatus: install ok installed\nVersion: 5.2.3-8\n"
	if err := os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), []byte(status), 0o644); err != nil {
		t.Fatal(err)
	}
	st := readDpkgStatus(machine.NewFS(root, "/", false))
	if st.unknown || st.RuntimeName != "libamdhip64-5" || st.RuntimeVersion != "5.2.3-8" {
		t.Errorf("readDpkgStatus = %+v", st)
	}
	if got := dpkgKnows(st, []string{"amdgpu-dkms", "amdgpu-kmod"}); !got["amdgpu-dkms"] || got["amdgpu-kmod"] {
		t.Errorf("dpkgKnows = %v", got)
	}
	missing := readDpkgStatus(machine.NewFS(t.TempDir(), "/", false))
	if !missing.unknown || missing.RuntimeVersion != "" {
		t.Errorf("no database: %+v, want unknown", missing)
	}
	if got := dpkgKnows(missing, []string{"amdgpu-kmod"}); !got["amdgpu-kmod"] {
		t.Errorf("dpkgKnows without a database = %v, want every candidate unknown", got)
	}
}
