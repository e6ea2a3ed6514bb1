package schema

// Identity is the placement identity the kernel gives this process
// (docs/isolation.md#placement-identity): a fingerprint of the running boot
// and, for every namespace type, the id the kernel never reuses during a
// boot. Two documents with equal boot fingerprints and equal ids were taken
// in the same place: a proof. Where the kernel has no id, the inode hash is
// recorded instead; inode numbers of dead namespaces are reused, so equal
// inode hashes are advisory only. probe_namespace (one of the 40 aorta keys)
// is unchanged.
type Identity struct {
	// Grade is proof (boot fingerprint and mount-namespace id recorded),
	// advisory (only inode hashes), or none (neither; the reasons say why).
	Grade string `py:"grade"`
	// AnsweredBy is kernel when this process asked the kernel, capture in
	// a replay (the ids and boot of the captured process, recorded in the
	// archive: docs/capture.md).
	AnsweredBy string `py:"answered_by"`
	// Boot fingerprints the running kernel boot.
	Boot BootIdentity `py:"boot"`
	// Namespaces are mnt, net, pid, user, uts, ipc, cgroup and time, in
	// that order.
	Namespaces []NamespaceIdentity `py:"namespaces"`
	// Root is the filesystem root the probe described; absent from
	// documents of older aorta-probe versions.
	Root *RootIdentity `py:"root,omitnil"`
}

// RootIdentity is the filesystem root the probe described: "/" of the
// probe process, or the --root directory as the probe saw it. Source:
// statx(2) of it (AT_NO_AUTOMOUNT), asking STATX_MNT_ID_UNIQUE (Linux 6.8),
// else STATX_MNT_ID (Linux 5.8); stat(2) where there is no statx. Two
// documents of one boot with different unique mount ids, or with the same
// one and another inode (a chroot into a directory of that mount), were
// taken under different roots: a proof. Device and inode alone, and the
// reused STATX_MNT_ID, are advisory.
type RootIdentity struct {
	// MountID is the id of the mount holding the root, or null.
	MountID *uint64 `py:"mount_id"`
	// Source is the statx mask bit that answered MountID:
	// STATX_MNT_ID_UNIQUE (never reused during a boot) or STATX_MNT_ID
	// (reused once the mount is gone: advisory); null with MountID.
	Source *string `py:"source"`
	// Reason says why there is no STATX_MNT_ID_UNIQUE id (an older
	// kernel, a seccomp policy), or null when there is one.
	Reason *string `py:"reason"`
	// Device is the root's device, "major:minor", or null.
	Device *string `py:"device"`
	// Inode is the root directory's inode number, or null.
	Inode *uint64 `py:"inode"`
}

// BootIdentity is the boot fingerprint. Source:
// /proc/sys/kernel/random/boot_id, hashed so that the raw id is not
// published: the same in every container of one running kernel, another at
// each boot.
type BootIdentity struct {
	// Fingerprint is "boot:" and the first 16 hex digits of SHA-256 over
	// "aorta-probe boot_id", NUL, the boot id; null when unreadable.
	Fingerprint *string `py:"fingerprint"`
	// Reason says why Fingerprint is null, or null when it is not.
	Reason *string `py:"reason"`
}

// NamespaceIdentity is one namespace of the probe process. Source:
// /proc/self/ns/<type>, opened, then the nsfs ioctl NS_GET_ID (Linux 6.18,
// every type) or NS_GET_MNTNS_ID (Linux 6.8, mnt only).
type NamespaceIdentity struct {
	// Type is the namespace type (the file name under /proc/self/ns).
	Type string `py:"type"`
	// ID is the 64-bit namespace id, never reused during a boot, or null.
	ID *uint64 `py:"id"`
	// Source is the ioctl that answered (NS_GET_ID or NS_GET_MNTNS_ID),
	// or null.
	Source *string `py:"source"`
	// Reason says why ID is null (the errno and what it means: ENOTTY or
	// EINVAL an older kernel, EPERM a seccomp policy, no /proc), or null.
	Reason *string `py:"reason"`
	// InodeHash is the advisory fallback: probe_namespace's salted hash of
	// the namespace link (for mnt, the probe_namespace value), or null when
	// the link is unreadable. The kernel reuses the inode of a dead
	// namespace, so equal hashes do not prove one place.
	InodeHash *string `py:"inode_hash"`
}
