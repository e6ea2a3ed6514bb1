package machine

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Memfd is a new memory file (memfd_create(2), Linux 3.17), close-on-exec,
// read-write at offset 0: a file that touches no filesystem. The Python
// helper's stdin is one (probe/python_bridge.go).
func Memfd(name string) (*os.File, error) {
	nr := memfdCreateCall()
	if nr == 0 {
		return nil, &os.SyscallError{Syscall: "memfd_create", Err: syscall.ENOSYS}
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return nil, err
	}
	const mfdCloexec = 0x1 // MFD_CLOEXEC
	fd, _, errno := syscall.Syscall(nr, uintptr(unsafe.Pointer(p)), mfdCloexec, 0)
	if errno != 0 {
		return nil, &os.SyscallError{Syscall: "memfd_create", Err: errno}
	}
	return os.NewFile(fd, "memfd:"+name), nil
}

// memfdCreateCall is memfd_create's system call number on this
// architecture (the kernel's syscall tables; the syscall package lacks it
// for amd64), 0 where it is not known.
func memfdCreateCall() uintptr {
	switch runtime.GOARCH {
	case "amd64":
		return 319
	case "arm64", "riscv64", "loong64":
		return 279
	case "386":
		return 356
	case "arm":
		return 385
	case "ppc64", "ppc64le":
		return 360
	case "s390x":
		return 350
	}
	return 0
}
