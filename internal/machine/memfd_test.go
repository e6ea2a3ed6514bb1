package machine

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestMemfd: a memory file, close-on-exec, that reads back what was
// written once it is rewound.
func TestMemfd(t *testing.T) {
	f, err := Memfd("test")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if link, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd())); !strings.HasPrefix(link, "/memfd:test") {
		t.Errorf("fd links to %q", link)
	}
	if fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFD, 0); errno != 0 || fl&syscall.FD_CLOEXEC == 0 {
		t.Errorf("flags %#x, %v: not close-on-exec", fl, errno)
	}
	f.WriteString("payload")
	f.Seek(0, 0)
	if b, err := io.ReadAll(f); err != nil || string(b) != "payload" {
		t.Errorf("read %q, %v", b, err)
	}
}
