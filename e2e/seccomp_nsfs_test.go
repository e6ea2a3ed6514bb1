package e2e

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// nsfsErrnoEnv makes this test binary a launcher that simulates a kernel
// without the nsfs id ioctls (docs/isolation.md#placement-identity): it
// installs a seccomp filter that answers every ioctl of type 0xb7 (NSIO)
// with the named errno, then executes os.Args[1:] — the real probe binary
// — which then meets a kernel that behaves like one before Linux 6.8.
const nsfsErrnoEnv = "AORTA_PROBE_TEST_NSFS_ERRNO"

// statxErrnoEnv adds statx(2) to what the launcher's filter refuses, with
// the named errno (ENOSYS: a kernel before Linux 4.11): the probe then
// knows its root by stat's device and inode only, without a mount id
// (docs/isolation.md#placement-identity).
const statxErrnoEnv = "AORTA_PROBE_TEST_STATX_ERRNO"

func init() {
	nsfsName, statxName := os.Getenv(nsfsErrnoEnv), os.Getenv(statxErrnoEnv)
	if nsfsName == "" && statxName == "" {
		return
	}
	os.Unsetenv(nsfsErrnoEnv)
	os.Unsetenv(statxErrnoEnv)
	errnos := map[string]syscall.Errno{"": 0, "ENOTTY": syscall.ENOTTY, "EINVAL": syscall.EINVAL, "EPERM": syscall.EPERM, "ENOSYS": syscall.ENOSYS}
	nsfs, ok1 := errnos[nsfsName]
	statx, ok2 := errnos[statxName]
	if !ok1 || !ok2 || len(os.Args) < 2 {
		fmt.Fprintf(os.Stderr, "%s=%q %s=%q: want ENOTTY, EINVAL, EPERM or ENOSYS and a command\n", nsfsErrnoEnv, nsfsName, statxErrnoEnv, statxName)
		os.Exit(2)
	}
	if err := execWithoutNsfsIoctl(nsfs, statx, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "seccomp launcher: %v\n", err)
		os.Exit(2)
	}
}

type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

type sockFprog struct {
	n      uint16
	filter *sockFilter
}

// auditArch is AUDIT_ARCH_* of this build, 0 where the test does not know
// it; sysStatx is statx's system call number there.
var (
	auditArch = map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}[runtime.GOARCH]
	sysStatx  = map[string]uint32{"amd64": 332, "arm64": 291}[runtime.GOARCH]
)

// execWithoutNsfsIoctl executes argv under a seccomp filter answering the
// NSIO ioctls with nsfs and statx with statx (0: allowed).
func execWithoutNsfsIoctl(nsfs, statx syscall.Errno, argv []string) error {
	if auditArch == 0 {
		return fmt.Errorf("no AUDIT_ARCH for %s", runtime.GOARCH)
	}
	const (
		ldAbs  = 0x20 // BPF_LD|BPF_W|BPF_ABS
		jeqK   = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
		andK   = 0x54 // BPF_ALU|BPF_AND|BPF_K
		retK   = 0x06 // BPF_RET|BPF_K
		allow  = 0x7fff0000
		errRet = 0x00050000
	)
	prog := []sockFilter{
		{ldAbs, 0, 0, 4}, // seccomp_data.arch
		{jeqK, 1, 0, auditArch},
		{retK, 0, 0, allow},
		{ldAbs, 0, 0, 0}, // seccomp_data.nr
	}
	if statx != 0 {
		prog = append(prog,
			sockFilter{jeqK, 0, 1, sysStatx},
			sockFilter{retK, 0, 0, errRet | uint32(statx)})
	}
	if nsfs != 0 {
		prog = append(prog,
			sockFilter{jeqK, 0, 4, uint32(syscall.SYS_IOCTL)},
			sockFilter{ldAbs, 0, 0, 24}, // low half of args[1], the request
			sockFilter{andK, 0, 0, 0xff00},
			sockFilter{jeqK, 0, 1, 0xb700}, // _IOC_TYPE == NSIO
			sockFilter{retK, 0, 0, errRet | uint32(nsfs)})
	}
	prog = append(prog, sockFilter{retK, 0, 0, allow})
	fp := sockFprog{uint16(len(prog)), &prog[0]}
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, 38 /* PR_SET_NO_NEW_PRIVS */, 1, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("PR_SET_NO_NEW_PRIVS: %v", e)
	}
	// PR_SET_SECCOMP, SECCOMP_MODE_FILTER: this thread only, which is the
	// one that executes the probe next.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 22, 2, uintptr(unsafe.Pointer(&fp))); e != 0 {
		return fmt.Errorf("PR_SET_SECCOMP: %v", e)
	}
	return syscall.Exec(argv[0], argv, os.Environ())
}
