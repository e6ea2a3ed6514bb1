package machine

import (
	"syscall"
	"testing"
)

// TestKeepInherited: a descriptor without close-on-exec (as one a caller
// leaks to the probe) has it afterwards, and stays open.
func TestKeepInherited(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil { // no O_CLOEXEC
		t.Fatal(err)
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	if fdFlags(t, p[1])&syscall.FD_CLOEXEC != 0 {
		t.Fatal("pipe(2) gave a close-on-exec descriptor")
	}
	KeepInherited()
	for _, fd := range p {
		if fdFlags(t, fd)&syscall.FD_CLOEXEC == 0 {
			t.Errorf("fd %d: not close-on-exec after KeepInherited", fd)
		}
	}
}

func fdFlags(t *testing.T, fd int) uintptr {
	t.Helper()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if errno != 0 {
		t.Fatalf("fcntl(%d, F_GETFD): %v", fd, errno)
	}
	return flags
}

// BenchmarkKeepInherited is what KeepInherited adds to every run: one
// listing of /proc/self/fd and an fcntl per descriptor.
func BenchmarkKeepInherited(b *testing.B) {
	for b.Loop() {
		KeepInherited()
	}
}
