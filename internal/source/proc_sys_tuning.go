package source

import (
	"strconv"
	"strings"
)

// The node-wide sysctls AMD's Instinct guides name (docs/tuning.md):
// procfs files holding one integer or one word. /proc/sys/kernel and
// /proc/sys/vm are not namespaced: a container reads the host kernel's.

// NUMABalancing is /proc/sys/kernel/numa_balancing: 0 disabled, else a bit
// OR of 1 (NUMA_BALANCING_NORMAL) and 2 (memory tiering)
// (Documentation/admin-guide/sysctl/kernel.rst).
func (fs FS) NUMABalancing() (int64, error) {
	return fs.sysctlInt("/proc/sys/kernel/numa_balancing")
}

// CompactionProactiveness is /proc/sys/vm/compaction_proactiveness (0–100).
func (fs FS) CompactionProactiveness() (int64, error) {
	return fs.sysctlInt("/proc/sys/vm/compaction_proactiveness")
}

// CompactUnevictableAllowed is /proc/sys/vm/compact_unevictable_allowed
// (0 or 1).
func (fs FS) CompactUnevictableAllowed() (int64, error) {
	return fs.sysctlInt("/proc/sys/vm/compact_unevictable_allowed")
}

// KernelRelease is /proc/sys/kernel/osrelease ("6.8.0-40-generic").
func (fs FS) KernelRelease() (string, error) {
	const p = "/proc/sys/kernel/osrelease"
	s, err := fs.Attr(p)
	if err != nil {
		return "", err
	}
	if strings.ContainsAny(s, " \t\n") {
		return "", parseErr(p, "not one word")
	}
	return s, nil
}

func (fs FS) sysctlInt(p string) (int64, error) {
	s, err := fs.Attr(p)
	if err != nil {
		return 0, err
	}
	n, ok := ParseSysctlInt(s)
	if !ok {
		return 0, parseErr(p, "not one integer")
	}
	return n, nil
}

// ParseSysctlInt parses a sysctl holding one decimal integer ("0\n").
func ParseSysctlInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// KernelVersionAtLeast reports whether release ("6.8.0-40-generic")
// is at least major.minor; ok is false when it does not start with
// "<major>.<minor>".
func KernelVersionAtLeast(release string, major, minor int) (at, ok bool) {
	a, rest, found := strings.Cut(release, ".")
	if !found {
		return false, false
	}
	b := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		b = rest[:i]
	}
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return false, false
	}
	return ma > major || ma == major && mi >= minor, true
}
