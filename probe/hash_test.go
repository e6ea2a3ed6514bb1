package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"aorta-probe/internal/testtree"
)

func sha256Hex(content string) string {
	s := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(s[:])
}

// The sanity vector (docs/rocm-libraries.md#test-vectors).
func TestSHA256OfPath(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "lib"), []byte("hello hipblaslt"), 0o644); err != nil {
		t.Fatal(err)
	}
	testtree.Make(t, root, "abs -> /lib", "rel -> lib", "loop -> loop", "a -> b", "b -> a", "dangling -> nope", "dir/")
	s := testState(t, root)
	const want = "sha256:eac3289f37a7d4ce5d5197ffddc9427f03ba939350617637a5067a5459c91153"
	for _, p := range []string{"/lib", "/abs", "/rel", "/dir/../lib", "/./dir/../abs"} {
		if got, err := s.sha256OfPath(p); err != nil || got != want {
			t.Errorf("%s: %q, %v", p, got, err)
		}
	}
	for _, tc := range []struct {
		p     string
		errno syscall.Errno
	}{{"/loop", syscall.ELOOP}, {"/a", syscall.ELOOP}, {"/dangling", syscall.ENOENT}, {"/dir", syscall.EINVAL}, {"/lib/x", syscall.ENOTDIR}} {
		_, err := s.sha256OfPath(tc.p)
		if !errors.Is(err, tc.errno) {
			t.Errorf("%s: err %v, want %v", tc.p, err, tc.errno)
		}
	}
}

// Each file is hashed once per run, whatever path names it.
func TestHashOncePerFile(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "f", "l1 -> f", "l2 -> /f")
	s := testState(t, root)
	for _, p := range []string{"/f", "/l1", "/l2", "/f"} {
		if _, err := s.sha256OfPath(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.hashes.done); n != 1 {
		t.Errorf("%d memo entries, want 1", n)
	}
}

// A FIFO or a device node where a file should be fails at once, never
// blocks.
func TestHashSpecialFiles(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testState(t, root)
	if _, err := s.sha256OfPath("/fifo"); err == nil {
		t.Error("FIFO hashed")
	}
	dev := filepath.Join(root, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Logf("mknod not permitted (%v): device case skipped", err)
		return
	}
	if _, err := s.sha256OfPath("/null"); err == nil {
		t.Error("device hashed")
	}
	if got := libHash(s, "/", "null"); got != nil {
		t.Error("device as library hashed")
	}
}
