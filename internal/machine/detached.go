package machine

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
)

// Detached reads (docs/design-notes.md, "Reads that never return"): a read
// of a file whose driver never answers (a GPU's sysfs during a hung reset,
// a FUSE server that never replies) leaves the reading thread in the
// kernel, where SIGKILL does not reach it; exit_group then waits for that
// thread, so the whole process never exits and keeps its descriptors,
// the caller's stdout and stderr pipes among them. Such reads are made by
// a child instead: this very binary re-executed, in its own session,
// holding /dev/null as its standard streams and, of the probe, only the
// pipe its answer comes back on (none of the caller's descriptors:
// KeepInherited). At the end of the collection a
// child that has not answered is killed and abandoned, never waited for;
// the probe exits, and the child, if the kernel holds it, stays until the
// read returns (docs/hardware.md, "A read that never returns").

// DetachedFD is the descriptor a detached child writes its answer to.
const DetachedFD = 3

// Detached is one running detached child.
type Detached struct {
	pid  int
	out  *os.File
	done chan struct{} // closed once the child was waited for
	code int           // its exit status (-N for signal N), once done
}

// StartDetached starts the executable exe with argv (argv[0] included) as
// a detached child: its own session and process group, stdin, stdout and
// stderr /dev/null, the write end of a pipe as DetachedFD, an empty
// environment, "/" as its working directory, killed (SIGKILL) if the probe
// dies first. It is registered as a running command, so that ReapOrphans
// never waits for it.
func StartDetached(exe string, argv []string) (*Detached, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	d := &Detached{out: r, done: make(chan struct{})}
	attr := &syscall.ProcAttr{Dir: "/", Env: []string{},
		Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), w.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}}
	err = startChild(func() error {
		pid, err := syscall.ForkExec(exe, argv, attr)
		d.pid = pid
		return err
	}, func() int { return d.pid })
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", exe, err)
	}
	go d.wait()
	return d, nil
}

// wait reaps the child whenever it exits: at once for one that answered,
// at its read's return for one the kernel held (a blocked wait4 sleeps
// interruptibly and does not keep the probe from exiting).
func (d *Detached) wait() {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(d.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	d.code = ws.ExitStatus()
	if ws.Signaled() {
		d.code = -int(ws.Signal())
	}
	reaper.mu.Lock()
	delete(reaper.live, d.pid)
	reaper.mu.Unlock()
	close(d.done)
}

// Answer reads the child's answer, max bytes at most, until it closes its
// end (it exited), and its exit status. When ctx ends first the child is
// killed (its process group, SIGKILL) and abandoned, and err is ctx's.
func (d *Detached) Answer(ctx context.Context, max int64) (b []byte, code int, err error) {
	stop := context.AfterFunc(ctx, func() {
		syscall.Kill(-d.pid, syscall.SIGKILL)
		d.out.Close() // ends the read below
	})
	b, rerr := io.ReadAll(io.LimitReader(d.out, max+1))
	if !stop() {
		return nil, 0, ctx.Err()
	}
	d.out.Close()
	if rerr != nil {
		syscall.Kill(-d.pid, syscall.SIGKILL)
		return nil, 0, rerr
	}
	if int64(len(b)) > max {
		syscall.Kill(-d.pid, syscall.SIGKILL)
		return nil, 0, fmt.Errorf("answer larger than %d bytes", max)
	}
	select {
	case <-d.done:
	case <-ctx.Done(): // closed its pipe but does not exit: abandoned
		syscall.Kill(-d.pid, syscall.SIGKILL)
		return nil, 0, ctx.Err()
	}
	return b, d.code, nil
}

// DetachedAnswer is, in a detached child, where its answer goes: the
// DetachedFD pipe.
func DetachedAnswer() *os.File { return os.NewFile(DetachedFD, "answer") }

// KeepInherited makes every descriptor above stderr that this process
// inherited without close-on-exec (one its caller leaked: a make
// jobserver, a pipe a Slurm prolog or a Buck2 action waits on)
// close-on-exec, so that no child of the probe holds it: not the detached
// reader, not a tool the kernel holds in a read of a hung device's files
// (rocm_agent_enumerator reads the kfd topology too). The probe itself
// keeps them. Only the binary calls it, first thing; nothing is done
// without /proc.
func KeepInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno == 0 && flags&syscall.FD_CLOEXEC == 0 {
			syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, flags|syscall.FD_CLOEXEC)
		}
	}
}
