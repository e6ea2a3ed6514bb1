package probe

import (
	"encoding/binary"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"aorta-probe/internal/machine"
)

// The root's identity, probe_provenance.identity.root
// (docs/isolation.md#placement-identity): statx(2) of the root the
// collection describes.

// statx(2) (Linux include/uapi/linux/stat.h): the mask bits asked and the
// offsets of the fields read in struct statx (256 bytes).
const (
	statxIno         = 0x100  // STATX_INO
	statxMntID       = 0x1000 // STATX_MNT_ID, Linux 5.8: reused once the mount is gone
	statxMntIDUnique = 0x4000 // STATX_MNT_ID_UNIQUE, Linux 6.8: never reused during a boot
	atNoAutomount    = 0x800
	atFdcwd          = -100

	statxOffMask     = 0
	statxOffIno      = 32
	statxOffDevMajor = 136
	statxOffDevMinor = 140
	statxOffMntID    = 144
	statxSize        = 256
)

// statxAnswer is what statx said: the mask of the fields it filled, the
// mount id, the device and the inode.
type statxAnswer struct {
	mask               uint32
	mntID, ino         uint64
	devMajor, devMinor uint32
}

// rootID is statx of the root the collection describes, as the probe sees
// it: "/" on the live machine, the --root directory otherwise
// (docs/isolation.md#placement-identity).
func rootID(r *machine.FS) machine.RootAnswer {
	p := r.HostRoot()
	return askRoot(func(mask uint32) (statxAnswer, error) { return statx(p, mask) },
		func() (statxAnswer, error) {
			var st syscall.Stat_t
			if err := syscall.Stat(p, &st); err != nil {
				return statxAnswer{}, err
			}
			return statxAnswer{mask: statxIno, ino: st.Ino, devMajor: devMajor(uint64(st.Dev)), devMinor: devMinor(uint64(st.Dev))}, nil
		})
}

// askRoot asks statx for the root's inode and unique mount id and words
// what is missing: a kernel before 6.8 answers STATX_MNT_ID (reused)
// instead; without statx (ENOSYS before Linux 4.11, EPERM from a seccomp
// policy) stat gives the device and inode alone.
func askRoot(stx func(mask uint32) (statxAnswer, error), stat func() (statxAnswer, error)) machine.RootAnswer {
	var a machine.RootAnswer
	res, err := stx(statxIno | statxMntIDUnique)
	switch {
	case err != nil:
		a.Reason = "statx: " + errnoMeaning(err, "4.11")
		if res, err = stat(); err != nil {
			return a
		}
	case res.mask&statxMntIDUnique != 0:
		a.MountID, a.Source = res.mntID, "STATX_MNT_ID_UNIQUE"
	case res.mask&statxMntID != 0:
		a.MountID, a.Source = res.mntID, "STATX_MNT_ID"
		a.Reason = "STATX_MNT_ID_UNIQUE not answered (a kernel before 6.8); STATX_MNT_ID is reused"
	default:
		a.Reason = "STATX_MNT_ID_UNIQUE not answered (a kernel before 6.8)"
	}
	if res.mask&statxIno != 0 {
		a.Device = strconv.FormatUint(uint64(res.devMajor), 10) + ":" + strconv.FormatUint(uint64(res.devMinor), 10)
		a.Inode = res.ino
	}
	return a
}

// statx calls statx(2) on p (links followed, no automount).
func statx(p string, mask uint32) (statxAnswer, error) {
	nr := statxCall()
	if nr == 0 {
		return statxAnswer{}, syscall.ENOSYS
	}
	path, err := syscall.BytePtrFromString(p)
	if err != nil {
		return statxAnswer{}, err
	}
	var buf [statxSize]byte
	for {
		fd := atFdcwd
		_, _, e := syscall.Syscall6(nr, uintptr(fd), uintptr(unsafe.Pointer(path)), atNoAutomount, uintptr(mask),
			uintptr(unsafe.Pointer(&buf[0])), 0)
		switch e {
		case 0:
			ne := binary.NativeEndian
			return statxAnswer{mask: ne.Uint32(buf[statxOffMask:]), ino: ne.Uint64(buf[statxOffIno:]),
				devMajor: ne.Uint32(buf[statxOffDevMajor:]), devMinor: ne.Uint32(buf[statxOffDevMinor:]),
				mntID: ne.Uint64(buf[statxOffMntID:])}, nil
		case syscall.EINTR:
			continue
		}
		return statxAnswer{}, e
	}
}

// statxCall is statx's system call number on this architecture (the
// kernel's syscall tables; the syscall package lacks it but for loong64),
// 0 where it is not known.
func statxCall() uintptr {
	switch runtime.GOARCH {
	case "amd64":
		return 332
	case "arm64", "riscv64", "loong64":
		return 291
	case "386", "ppc64", "ppc64le":
		return 383
	case "arm":
		return 397
	case "s390x":
		return 379
	}
	return 0
}

// devMajor and devMinor split a Linux dev_t (glibc's gnu_dev_major/minor).
func devMajor(d uint64) uint32 { return uint32((d>>8)&0xfff | (d>>32)&^0xfff) }
func devMinor(d uint64) uint32 { return uint32(d&0xff | (d>>12)&^0xff) }
