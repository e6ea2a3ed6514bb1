package fusetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestServe mounts a tree, reads it back through the kernel, and checks
// that a read left unanswered blocks until Close and then fails.
func TestServe(t *testing.T) {
	if why := Available(); why != "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	s, err := Mount(dir, Tree{
		"a/file":  {Data: "hello\n"},
		"a/link":  {Mode: fs.ModeSymlink, Data: "../b"},
		"b/stuck": {Data: "never", Hang: "read"},
		"c":       {Mode: fs.ModeDir, Hang: "lookup"},
	})
	if err != nil {
		t.Skipf("cannot mount FUSE here: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	if b, err := readRaw(filepath.Join(dir, "a/file")); err != nil || string(b) != "hello\n" {
		t.Errorf("read a/file: %q %v", b, err)
	}
	if l, err := os.Readlink(filepath.Join(dir, "a/link")); err != nil || l != "../b" {
		t.Errorf("readlink a/link: %q %v", l, err)
	}
	es, err := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if err != nil || !slices.Equal(names, []string{"a", "b", "c"}) {
		t.Errorf("readdir: %q %v", names, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); !os.IsNotExist(err) {
		t.Errorf("stat nope: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readRaw(filepath.Join(dir, "b/stuck"))
		done <- err
	}()
	<-s.Heard()
	select {
	case err := <-done:
		t.Fatalf("read b/stuck returned before Close: %v", err)
	default:
	}
	if h := s.Hung(); !slices.Equal(h, []string{"read b/stuck"}) {
		t.Errorf("hung: %q", h)
	}
	closed = true
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if err := <-done; err == nil {
		t.Error("read b/stuck: no error after Close")
	}
}

// readRaw reads the file p with bare system calls: os.ReadFile would
// register the file with the runtime's poller, and epoll_ctl on a FUSE
// file asks the server (FUSE_POLL) from a thread the scheduler cannot take
// back, which deadlocks a process that serves the mount itself.
func readRaw(p string) ([]byte, error) {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err != nil {
			return out, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}
