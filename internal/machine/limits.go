package machine

import (
	"fmt"
	"syscall"
	"time"
)

// DefaultDeadline bounds a collection when no deadline was given, and the
// write of a command's output that has none of its own (env-names). It
// is above the longest single command timeout (LongTimeout,
// rocm_agent_enumerator on a large host takes ~16 s) so that a slow but
// healthy tool still answers.
const DefaultDeadline = 60 * time.Second

// Resource limits (docs/usage.md, "Tight resource limits"). A collection
// normally runs every probe at once, and within a block the independent
// commands at once: that is what keeps a run of hanging tools near one
// timeout. Each blocked system call holds an OS thread (with its stack)
// and each command a process and several descriptors, so under a small
// RLIMIT_NPROC (which counts threads), RLIMIT_NOFILE or RLIMIT_AS the same
// concurrency makes the Go runtime abort (it cannot create a thread or map
// memory) or every open fail. Below the
// thresholds the collection runs one probe at a time, the commands of a
// block one after another, and one hash at a time (probe.Options.Workers = 1):
// slower, but the document is written.
const (
	// lowNproc and lowNofile are the soft limits below which the
	// collection runs serially. A default run peaks at a few dozen
	// threads and processes and about a hundred descriptors.
	lowNproc  = 256
	lowNofile = 256
	// lowAS: the runtime alone reserves about 740 MiB of address space
	// at start; below 2 GiB every extra thread and heap arena counts.
	lowAS = 2 << 30
	// rlimitNproc is RLIMIT_NPROC on Linux amd64 and arm64 (the syscall
	// package does not name it).
	rlimitNproc = 6
)

// LowLimits reports whether this process's soft RLIMIT_NPROC or
// RLIMIT_NOFILE is below the thresholds, and which, in words.
func LowLimits() (string, bool) {
	var nproc, nofile syscall.Rlimit
	low := ""
	// RLIMIT_NPROC does not bind root (CAP_SYS_RESOURCE, CAP_SYS_ADMIN).
	if syscall.Geteuid() != 0 && syscall.Getrlimit(rlimitNproc, &nproc) == nil && nproc.Cur < lowNproc {
		low = fmt.Sprintf("RLIMIT_NPROC %d", nproc.Cur)
	}
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile) == nil && nofile.Cur < lowNofile {
		low = join(low, fmt.Sprintf("RLIMIT_NOFILE %d", nofile.Cur))
	}
	var as syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &as) == nil && as.Cur < lowAS {
		low = join(low, fmt.Sprintf("RLIMIT_AS %d", as.Cur))
	}
	return low, low != ""
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}
