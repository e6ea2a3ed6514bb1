package machine

// Uname is the part of uname(2) the document records.
type Uname struct{ Release, Version, Machine string }

// NamespaceAnswer is what the kernel said of the id of one of the probe's
// namespaces: the id and the ioctl that gave it, or why there is none.
type NamespaceAnswer struct {
	ID     uint64
	Source string
	Reason string
}

// RootAnswer is what the kernel said of the filesystem root the probe
// described (statx of it, docs/isolation.md#placement-identity): the mount
// id with the statx mask bit that answered it (STATX_MNT_ID_UNIQUE, never
// reused during a boot, or STATX_MNT_ID, reused), why there is no unique
// one, and the root's device ("major:minor") and inode ("" when unknown).
type RootAnswer struct {
	MountID uint64
	Source  string // "" when no mount id was answered
	Reason  string // why there is no STATX_MNT_ID_UNIQUE id
	Device  string
	Inode   uint64
}

// Seams are what a collection reads of the machine besides its files:
// what a capture records and a replay answers. probe.Options embeds them
// (the one place they are declared) and gives the live machine's
// defaults; tests set them to a fake machine.
type Seams struct {
	// Root is the host path of the filesystem root the collection
	// describes: "/", a mounted host or image, a fake machine root in
	// tests, or a replay's expanded archive.
	Root string
	// Cwd is the machine's working directory, which relative paths
	// resolve against; under a Root other than "/" it is a path inside
	// that root (docs/rocm-roots.md).
	Cwd string
	// Path is where tools are looked up. Nil means the absolute entries
	// of $PATH (SearchPath of Env) on the live machine, and nothing
	// under another root, so no binary of a mounted foreign root is
	// executed by accident.
	Path []string
	// Env looks up one variable of the probe's environment, by name: the
	// environment is never listed.
	Env func(string) (string, bool)
	// Runner runs every external command (ExecRunner on the live
	// machine).
	Runner Runner
	// Uname answers uname(2).
	Uname func() (Uname, error)
	// NamespaceID answers the nsfs ioctl for one namespace type of the
	// probe process (probe/probe_identity.go). Tests set it to simulate
	// an older kernel.
	NamespaceID func(kind string) NamespaceAnswer
	// RootID answers statx of the root the collection describes. Tests
	// fix it: a fake root's mount id is the test machine's.
	RootID func() RootAnswer
	// TempName gives the 8 random characters of rdhc's temp file name
	// (rdhc_quick_XXXXXXXX.json) for the attempt-th try in one directory
	// (probe/system_health.go). Tests fix it so the argv in golden
	// documents is stable; a replay gives the captured names
	// (docs/capture.md).
	TempName func(attempt int) string
}
