// Package limits is the probe's start under tight resource limits
// (docs/usage.md, "Tight resource limits"): one clear line instead of a
// runtime abort, and a serial collection under low limits.
package limits

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"aorta-probe/internal/machine"
)

// Start prepares the process for tight resource limits (docs/usage.md,
// "Tight resource limits"), or exits 1 with one line when they leave the
// runtime no room. main calls it first, while the process holds only what
// it inherited and the runtime's first threads and descriptors.
func Start() {
	if msg := cannotStart(); msg != "" {
		// The runtime would abort with a stack dump and exit status 2,
		// which reads as a usage error; say why in one line instead.
		fmt.Fprintln(os.Stderr, "aorta-probe: "+msg)
		os.Exit(1)
	}
	// The runtime's poller takes two descriptors (epoll, eventfd) the
	// first time a file is opened, and aborts the process when it cannot.
	// Opening /dev/null now makes that happen while the lowest
	// descriptors are free, not whenever a probe happens to hold files.
	if f, err := os.Open(os.DevNull); err == nil {
		f.Close()
	}
	// Under low limits the collection runs serially (machine.LowLimits,
	// probe.Options.Workers); one P also keeps the runtime from starting
	// threads to run goroutines in parallel.
	if _, low := machine.LowLimits(); low {
		runtime.GOMAXPROCS(1)
	}
}

// minFreeFDs is the floor below which the Go runtime itself cannot run the
// probe (measured, docs/usage.md): descriptors for the poller plus one to
// work with.
const minFreeFDs = 3 // epoll, eventfd, one file at a time

// cannotStart says why the limits leave the runtime no room to run the
// probe, or "". Only raw system calls are used: opening a file through os
// would start the poller, which is what may not fit.
func cannotStart() string {
	var nofile syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile) == nil && nofile.Cur < 1<<16 {
		if free, ok := freeFDsBelow(int(nofile.Cur)); ok && free < minFreeFDs {
			return fmt.Sprintf("RLIMIT_NOFILE %d leaves %d free file descriptor(s); the Go runtime needs %d (raise ulimit -n)", nofile.Cur, free, minFreeFDs)
		}
	}
	// RLIMIT_NPROC has no such check: below the runtime's threads it
	// aborts before any code of the probe runs (measured as nobody from
	// 1 to 16, docs/usage.md), so a check here could never fire.
	return ""
}

// freeFDsBelow counts the descriptor numbers below limit not in use, from
// /proc/self/fd read with raw system calls (none free when not even that
// directory can be opened); ok is false when it cannot be read otherwise.
func freeFDsBelow(limit int) (int, bool) {
	dir, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err == syscall.EMFILE {
		return 0, true // not one left
	}
	if err != nil {
		return 0, false
	}
	defer syscall.Close(dir)
	used := 0
	buf := make([]byte, 4096)
	for {
		n, err := syscall.ReadDirent(dir, buf)
		if err != nil {
			return 0, false
		}
		if n == 0 {
			break
		}
		_, _, names := syscall.ParseDirent(buf[:n], -1, nil)
		for _, name := range names {
			if fd, err := strconv.Atoi(name); err == nil && fd < limit && fd != dir {
				used++
			}
		}
	}
	return limit - used, true
}
