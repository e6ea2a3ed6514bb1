package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// namespaceTypes are the namespaces of probe_provenance.identity, in order
// (docs/isolation.md#placement-identity).
var namespaceTypes = []string{"mnt", "net", "pid", "user", "uts", "ipc", "cgroup", "time"}

// The nsfs ioctls (Linux include/uapi/linux/nsfs.h, NSIO 0xb7):
// NS_GET_MNTNS_ID = _IOR(NSIO, 5, __u64), Linux 6.8, mount namespaces only;
// NS_GET_ID = _IOR(NSIO, 13, __u64), Linux 6.18, every type. Both answer an
// id that is never reused during a boot.
const (
	nsGetMntnsID = 0x8008b705
	nsGetID      = 0x8008b70d
)

// Filesystem magics (statfs f_type) that tell a real /proc and a real
// namespace file from a fake root's files.
const (
	procSuperMagic = 0x9fa0
	nsfsMagic      = 0x6e736673
)

// collectIdentity is probe_provenance.identity
// (docs/isolation.md#placement-identity). It never appends a partial
// reason: the 40 aorta keys stay exactly the Python probe's; its reasons
// are in the block.
func collectIdentity(s *state, bootID *string) schema.Identity {
	id := schema.Identity{AnsweredBy: "kernel", Namespaces: make([]schema.NamespaceIdentity, 0, len(namespaceTypes))}
	if s.opt.Replay != nil {
		id.AnsweredBy = "capture"
	}
	if bootID != nil {
		sum := sha256.Sum256([]byte("aorta-probe boot_id\x00" + *bootID))
		id.Boot.Fingerprint = schema.Str("boot:" + hex.EncodeToString(sum[:])[:16])
	} else {
		id.Boot.Reason = schema.Str("/proc/sys/kernel/random/boot_id unreadable")
	}
	ask := s.opt.NamespaceID
	if ask == nil {
		ask = func(kind string) machine.NamespaceAnswer { return namespaceID(s.root, kind) }
	}
	for _, kind := range namespaceTypes {
		ns := schema.NamespaceIdentity{Type: kind}
		a := ask(kind)
		if a.Reason == "" {
			ns.ID, ns.Source = &a.ID, schema.Str(a.Source)
		} else {
			ns.Reason = schema.Str(a.Reason)
		}
		if t, err := s.root.Readlink("/proc/self/ns/" + kind); err == nil && t != "" {
			ns.InodeHash = schema.Str(namespaceKey(kind, bootID, t))
		}
		id.Namespaces = append(id.Namespaces, ns)
	}
	askRoot := s.opt.RootID
	if askRoot == nil {
		askRoot = func() machine.RootAnswer { return rootID(s.root) }
	}
	root := rootIdentity(askRoot())
	id.Root = &root
	id.Grade = identityGrade(id)
	return id
}

// rootIdentity is probe_provenance.identity.root of the kernel's answer.
func rootIdentity(a machine.RootAnswer) schema.RootIdentity {
	var r schema.RootIdentity
	if a.Source != "" {
		r.MountID, r.Source = &a.MountID, schema.Str(a.Source)
	}
	if a.Reason != "" {
		r.Reason = schema.Str(a.Reason)
	}
	if a.Device != "" {
		r.Device, r.Inode = schema.Str(a.Device), &a.Inode
	}
	return r
}

// identityGrade: proof needs the boot and the mount namespace id; advisory
// has at least the mount namespace's inode hash.
func identityGrade(id schema.Identity) string {
	var mnt schema.NamespaceIdentity
	for _, ns := range id.Namespaces {
		if ns.Type == "mnt" {
			mnt = ns
		}
	}
	switch {
	case id.Boot.Fingerprint != nil && mnt.ID != nil:
		return "proof"
	case mnt.InodeHash != nil:
		return "advisory"
	}
	return "none"
}

// namespaceID asks the kernel for the id of the probe's namespace kind:
// /proc of the root must be a procfs (a fake root or an image has none)
// and its self/ns/<kind> a namespace file; NS_GET_ID, then for mnt
// NS_GET_MNTNS_ID. Nothing is recorded by a capture here: the answer is
// (capture.go).
func namespaceID(r *machine.FS, kind string) machine.NamespaceAnswer {
	proc, err := r.OpenUnwatched("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY)
	if err != nil {
		return machine.NamespaceAnswer{Reason: fmt.Sprintf("no /proc (%s: %s)", pyfmt.ExcType(err), pyfmt.ExcStr(err))}
	}
	defer proc.Close()
	if !onFS(proc, procSuperMagic) {
		return machine.NamespaceAnswer{Reason: "/proc is not a procfs (a fake root, or an image without /proc)"}
	}
	p := "/proc/self/ns/" + kind
	var fd int
	for {
		fd, err = syscall.Openat(int(proc.Fd()), "self/ns/"+kind, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		err = &os.PathError{Op: "open", Path: p, Err: err}
		return machine.NamespaceAnswer{Reason: fmt.Sprintf("%s unreadable (%s: %s)", p, pyfmt.ExcType(err), pyfmt.ExcStr(err))}
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if !onFS(f, nsfsMagic) {
		return machine.NamespaceAnswer{Reason: p + " is not a namespace file (nsfs)"}
	}
	return askNamespaceID(kind, func(req uintptr) (uint64, error) { return nsIoctl(f, req) })
}

// askNamespaceID tries NS_GET_ID, then for mnt NS_GET_MNTNS_ID, through
// ioctl, and words the failure (docs/isolation.md#placement-identity).
func askNamespaceID(kind string, ioctl func(req uintptr) (uint64, error)) machine.NamespaceAnswer {
	v, err := ioctl(nsGetID)
	if err == nil {
		return machine.NamespaceAnswer{ID: v, Source: "NS_GET_ID"}
	}
	if kind != "mnt" {
		return machine.NamespaceAnswer{Reason: "NS_GET_ID: " + errnoMeaning(err, "6.18")}
	}
	v, err2 := ioctl(nsGetMntnsID)
	if err2 == nil {
		return machine.NamespaceAnswer{ID: v, Source: "NS_GET_MNTNS_ID"}
	}
	return machine.NamespaceAnswer{Reason: "NS_GET_ID: " + errnoMeaning(err, "6.18") + "; NS_GET_MNTNS_ID: " + errnoMeaning(err2, "6.8")}
}

// errnoMeaning words an ioctl error: the errno name and what it means.
func errnoMeaning(err error, since string) string {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return err.Error()
	}
	name := map[syscall.Errno]string{syscall.ENOTTY: "ENOTTY", syscall.EINVAL: "EINVAL", syscall.EPERM: "EPERM",
		syscall.EACCES: "EACCES", syscall.ENOSYS: "ENOSYS"}[en]
	if name == "" {
		name = archive.ErrnoName(en)
	}
	switch en {
	case syscall.ENOTTY, syscall.EINVAL:
		return name + " (a kernel before " + since + ")"
	case syscall.EPERM, syscall.EACCES:
		return name + " (refused, e.g. by a seccomp policy)"
	}
	return name + " (" + en.Error() + ")"
}

func nsIoctl(f *os.File, req uintptr) (uint64, error) {
	var v uint64
	for {
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(&v)))
		switch e {
		case 0:
			return v, nil
		case syscall.EINTR:
			continue
		}
		return 0, e
	}
}

// onFS reports whether f is on the filesystem with statfs magic.
func onFS(f *os.File, magic int64) bool {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil {
		return false
	}
	return int64(st.Type) == magic
}
