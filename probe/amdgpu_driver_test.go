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
