package machine

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Orphans of the tools (docs/design-notes.md, "Children of a killed
// probe"): a tool's descendant that leaves the tool's process group
// (setsid, a daemonising helper) escapes the group kill at the end of its
// command. With BecomeSubreaper, the kernel re-parents such a descendant
// to the probe when its parent exits, instead of to init; after every
// command, and once more before the probe exits (ReapOrphans), whatever
// was re-parented is killed and reaped — or left, when the kernel holds it
// past orphanWait. The set of commands running is
// process-wide state, as the subreaper attribute itself is.

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (prctl(2), Linux ≥ 3.4).
const prSetChildSubreaper = 36

var reaper struct {
	mu      sync.Mutex
	enabled bool
	live    map[int]bool // children started by ExecRunner and not yet waited for
	// stuck are orphans killed that did not die within orphanWait: the
	// kernel holds them (a read of a hung device's files). They are never
	// waited for, only reaped if they die meanwhile.
	stuck map[int]bool
}

// orphanWait bounds the wait for a killed orphan to die: a process dies
// of SIGKILL in well under this, unless the kernel holds it in a read
// that never returns (docs/hardware.md, "A read that never returns"),
// and a blocking wait for it would keep the probe from ever exiting.
const orphanWait = 200 * time.Millisecond

// BecomeSubreaper makes this process the child subreaper of its
// descendants. Only the binary calls it: a test process has children of
// its own that are none of the probe's.
func BecomeSubreaper() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return e
	}
	reaper.mu.Lock()
	reaper.enabled = true
	reaper.mu.Unlock()
	return nil
}

// startChild runs start (which forks) with the new child registered as
// running, so that a concurrent ReapOrphans never takes it for an orphan.
func startChild(start func() error, pid func() int) error {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if err := start(); err != nil {
		return err
	}
	if reaper.live == nil {
		reaper.live = map[int]bool{}
	}
	reaper.live[pid()] = true
	return nil
}

// childDone is called once a child started by startChild was waited for:
// it kills and reaps what the command left re-parented to the probe.
func childDone(pid int) {
	reaper.mu.Lock()
	delete(reaper.live, pid)
	reaper.mu.Unlock()
	ReapOrphans()
}

// ReapOrphans kills (SIGKILL) and reaps every child of this process that
// no running command started: descendants of finished tools re-parented
// here. It waits orphanWait at most for each: one the kernel holds is
// left (and reaped if it dies before a later call). A killed orphan's own
// children are re-parented in turn, so it repeats until none is left
// (bounded). It does nothing unless BecomeSubreaper succeeded.
func ReapOrphans() {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if !reaper.enabled {
		return
	}
	self := os.Getpid()
	for range 64 {
		found := false
		for _, pid := range children(self) {
			if reaper.live[pid] {
				continue
			}
			if reaper.stuck[pid] {
				if reaped(pid) {
					delete(reaper.stuck, pid)
				}
				continue
			}
			found = true
			syscall.Kill(pid, syscall.SIGKILL)
			if !reapWithin(pid, orphanWait) {
				if reaper.stuck == nil {
					reaper.stuck = map[int]bool{}
				}
				reaper.stuck[pid] = true
			}
		}
		if !found {
			return
		}
	}
}

// reapWithin waits up to d for the child pid to end, and reaps it; false
// when it has not.
func reapWithin(pid int, d time.Duration) bool {
	end := time.Now().Add(d)
	for wait := 50 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		if reaped(pid) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(wait)
	}
}

// reaped reaps the child pid if it has ended (or is no child: nothing to
// wait for).
func reaped(pid int) bool {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return true
		}
		return got == pid
	}
}

// children lists the children of pid: from /proc/PID/task/*/children
// (a re-parented child is listed under one thread of its new parent),
// else by scanning /proc/*/stat for the parent pid.
func children(pid int) []int {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	var out []int
	tasks, err := os.ReadDir(base)
	listed := err == nil
	for _, t := range tasks {
		b, err := os.ReadFile(base + "/" + t.Name() + "/children")
		if err != nil {
			listed = false
			break
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	if listed {
		return out
	}
	out = out[:0]
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}
