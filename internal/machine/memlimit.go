package machine

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// Memory limits of the tools (docs/design-notes.md, "A tool's memory").
// Every command runs under an RLIMIT_DATA soft limit: the private
// writable memory it may map (heap, anonymous mmap, the writable data of
// its libraries), which is what a tool reading a huge or endless line
// grows. RLIMIT_AS would count every mapping, shared library text and
// the address space a GPU runtime reserves without touching it, and
// stop a Python importing torch long before it uses any memory.
const (
	// DefaultMemoryLimit bounds a tool's data: the real tools use a few
	// MiB (rocm_agent_enumerator about 10, a Python script).
	DefaultMemoryLimit = 256 << 20
	// memoryLimitMargin is the room the probe keeps under a child's
	// limit for itself: the limit is set on the probe around fork (the
	// child inherits it), so the probe's own data must stay under it
	// while the child starts (startLimited).
	memoryLimitMargin = 64 << 20
)

// rlimitData is RLIMIT_DATA (asm-generic/resource.h).
const rlimitData = 2

// startLimited runs start, which forks the child and execs it, so that
// the child starts under an RLIMIT_DATA soft limit of limit bytes (0:
// none); pid is the child's once started. It must run under reaper.mu,
// which serialises every start of the process (startChild): rlimits are
// per process, so the limit is set on the probe, inherited by the child
// across fork and exec, and the probe's own limit restored at once. The
// child gets the lower of limit and the probe's own limit (a limit the
// user set is never raised). When the probe's own data is too near the
// limit to take it for the start (its next mapping would fail), or
// unknown (no /proc), the limit is set on the child with prlimit(2)
// right after it started instead: the child may then map more before it
// applies, for a few microseconds (docs/design-notes.md).
func startLimited(start func() error, pid func() int, limit int64) error {
	if limit <= 0 {
		return start()
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(rlimitData, &old); err != nil || old.Cur <= uint64(limit) {
		return start() // already as low (or unknown): inherited as is
	}
	lim := syscall.Rlimit{Cur: uint64(limit), Max: old.Max}
	if own, ok := ownData(); !ok || own+memoryLimitMargin > limit {
		if err := start(); err != nil {
			return err
		}
		prlimit(pid(), &lim)
		return nil
	}
	if err := syscall.Setrlimit(rlimitData, &lim); err != nil {
		return start()
	}
	err := start()
	syscall.Setrlimit(rlimitData, &old)
	return err
}

// prlimit sets RLIMIT_DATA of process pid.
func prlimit(pid int, lim *syscall.Rlimit) error {
	if pid <= 0 {
		return syscall.EINVAL // 0 would be the probe itself
	}
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), rlimitData, uintptr(unsafe.Pointer(lim)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// ownData is the probe's data as RLIMIT_DATA counts it, in bytes: the
// data field of /proc/self/statm (pages); ok is false without /proc.
func ownData() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 6 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(f[5]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// atMemoryLimit reports whether a child that failed was most likely
// stopped by its memory limit: it died or exited non-zero and either its
// peak RSS reached half the limit (a tool growing a buffer touches what
// it maps, up to the limit) or its stderr reports a failed allocation
// (Python's MemoryError, C++'s std::bad_alloc, ENOMEM's text, the Go
// runtime's "out of memory": a runtime that maps in large steps fails
// with little touched). A limit leaves no other trace: the kernel only
// refuses the mapping, and the tool fails as on a machine out of memory.
func atMemoryLimit(limit, peakRSS int64, stderr []byte) bool {
	if limit <= 0 {
		return false
	}
	if peakRSS >= limit/2 {
		return true
	}
	for _, s := range []string{"MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory"} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return false
}

// memoryLimitLine is the stderr line the runner adds for a child stopped
// by its memory limit, so that every reason built from a tool's last
// stderr line says so.
func memoryLimitLine(limit, peakRSS int64) string {
	return fmt.Sprintf("aorta-probe: stopped by its memory limit (RLIMIT_DATA %d MiB; peak RSS %d MiB)\n", limit>>20, peakRSS>>20)
}
