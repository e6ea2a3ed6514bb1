package machine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Command is one external program to run. There is never a shell: Path is
// the absolute executable (resolved by which on the probe's search path) and
// Argv, passed as is, starts with the name the program is invoked as.
type Command struct {
	Path string
	Argv []string
	// Dir is the working directory; "" inherits the probe's.
	Dir string
	// Stdin is fed to the child; nil means /dev/null.
	Stdin []byte
	// StdinFrom, when set, is fed to the child instead of Stdin (the
	// nm | c++filt pipeline); the child sees end of file when it ends.
	StdinFrom io.Reader
	// StdoutTo, when set, receives stdout as it is read instead of the
	// capture: Result.Stdout stays nil and Result.StdoutN counts the bytes.
	// Its Write must not block for long; its errors are ignored, and the
	// child is drained to the end either way.
	StdoutTo io.Writer
	// Timeout bounds this command; the collection deadline bounds it too.
	Timeout time.Duration
	// MaxOutput caps stdout; 0 means DefaultMaxOutput.
	MaxOutput int
	// MaxStderr caps stderr; 0 means DefaultMaxStderr.
	MaxStderr int
	// MemoryLimit bounds the child's data (RLIMIT_DATA, memlimit.go) in
	// bytes; 0 means DefaultMemoryLimit, a negative value none.
	MemoryLimit int64
	// Env holds NAME=VALUE pairs added to the probe's environment for this
	// command only (the Python helper's loop marker, docs/python.md).
	Env []string
	// OutFile is a file of the probe's machine, named in Argv, that the
	// command writes its answer to (rdhc's --json report): a capture
	// records its content with the command and a replay writes it back
	// (docs/capture.md). Runners other than those ignore it.
	OutFile string
}

// Result is what a command did.
type Result struct {
	Stdout, Stderr []byte
	// StdoutN is the number of stdout bytes read from the child: at least
	// len(Stdout), more when the cap cut it or StdoutTo received it.
	StdoutN int64
	// ExitCode is the exit status, or -N when the child died of signal N
	// (the convention of Python's subprocess, which the reason texts embed).
	// It is meaningful only when Err is nil or an *ExitError.
	ExitCode int
	// Err is nil on exit status 0. Otherwise: ErrTimeout, an *ExitError for
	// a non-zero status, or the start failure (exec.ErrNotFound,
	// permission, …) wrapped with the argv.
	Err error
	// Truncated is true when a cap cut stdout or stderr; StdoutCut and
	// StderrCut say which.
	Truncated            bool
	StdoutCut, StderrCut bool
	Duration             time.Duration
	// MemoryStopped is set when the child failed at its memory limit
	// (Command.MemoryLimit, memlimit.go): a last line saying so is then
	// added to Stderr, so that a reason quoting it names the limit.
	MemoryStopped bool
	// Cut is set on the replayed result of a command that the end of the
	// captured collection killed (its deadline or a signal,
	// docs/capture.md): the replay takes it as the live collection took
	// it, whose context had ended.
	Cut bool
}

// TimedOut reports whether the command was killed at its timeout or when
// the collection ended (or was never started because it had ended).
func (r Result) TimedOut() bool { return errors.Is(r.Err, ErrTimeout) }

// Exit reports the status of a command that ran to its end: 0 on success,
// the status of a non-zero exit, -N for death by signal N. ok is false when
// it timed out or could not be started (LaunchErr).
func (r Result) Exit() (code int, ok bool) {
	var ee *ExitError
	switch {
	case r.Err == nil:
		return 0, true
	case errors.As(r.Err, &ee):
		return r.ExitCode, true
	}
	return 0, false
}

// LaunchErr is the error of a command that never ran to an exit for a reason
// other than a timeout: not found, permission, a failed wait; nil otherwise.
func (r Result) LaunchErr() error {
	if _, exited := r.Exit(); exited || r.TimedOut() {
		return nil
	}
	return r.Err
}

// ExitError is a command that ran and exited non-zero (or died by signal).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ErrTimeout is returned for a command killed at its timeout or the deadline.
var ErrTimeout error = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string { return "command timed out" }
func (timeoutError) Timeout() bool { return true }

// Runner starts external commands. The production runner is ExecRunner;
// tests may substitute their own.
type Runner interface {
	Run(ctx context.Context, cmd Command) Result
}

// Per-command timeouts (docs/hardware.md): the Python probe's
// SHORT_TIMEOUT_SEC and the long one of rdhc, rocm_agent_enumerator, nm and
// c++filt.
const (
	ShortTimeout = 5 * time.Second
	LongTimeout  = 30 * time.Second
)

// DefaultMaxOutput caps a command's stdout, DefaultMaxStderr its stderr.
// Real outputs of the tools run here are kilobytes, and stderr only ever
// gives a reason its first or last line; anything beyond is discarded as
// it is read, the child still drained so it never blocks on a full pipe.
// Many commands run at once (state.parallel), so the caps are what bounds
// the probe's memory whatever the tools print (docs/design-notes.md).
const (
	DefaultMaxOutput = 1 << 20
	DefaultMaxStderr = 256 << 10
)

// ExecRunner runs commands as real processes: stdin from /dev/null unless
// given, its own process group, the whole group killed with SIGKILL on
// timeout, stdout and stderr captured separately and capped.
type ExecRunner struct{}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, c Command) Result {
	start := time.Now()
	if !filepath.IsAbs(c.Path) {
		return Result{Err: fmt.Errorf("%q: executable path %q is not absolute", c.Argv, c.Path), ExitCode: -1}
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	stdout := &capped{max: orDefault(c.MaxOutput, DefaultMaxOutput), sink: c.StdoutTo}
	stderr := &capped{max: orDefault(c.MaxStderr, DefaultMaxStderr)}
	cmd := newExecCmd(ctx, c, stdout, stderr)
	limit := c.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	pid := func() int { return cmd.Process.Pid }
	if err := startChild(func() error { return startLimited(cmd.Start, pid, limit) }, pid); err != nil {
		return Result{Err: fmt.Errorf("%q: %w", c.Argv, err), ExitCode: -1, Duration: time.Since(start)}
	}
	werr := cmd.Wait()
	// The child is gone; kill anything it left in its group (a forked
	// helper still holding our pipes, which WaitDelay stopped waiting for),
	// and what left the group and was re-parented to the probe (reap.go).
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	childDone(cmd.Process.Pid)
	r := Result{
		Stdout: stdout.buf, Stderr: stderr.buf, StdoutN: stdout.n,
		Truncated: stdout.cut || stderr.cut, StdoutCut: stdout.cut, StderrCut: stderr.cut,
		Duration: time.Since(start),
	}
	if ctx.Err() != nil {
		// Killed at the timeout or the collection's end (cmd.Cancel), or
		// the deadline came while the pipes were still draining.
		r.Err, r.ExitCode = ErrTimeout, -int(syscall.SIGKILL)
		return r
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		r.ExitCode = -int(ws.Signal())
		r.Err = &ExitError{r.ExitCode}
	case ws.Exited() && ws.ExitStatus() != 0:
		r.ExitCode = ws.ExitStatus()
		r.Err = &ExitError{r.ExitCode}
	case werr != nil && !errors.Is(werr, exec.ErrWaitDelay):
		r.ExitCode = -1
		r.Err = fmt.Errorf("%q: %w", c.Argv, werr)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && r.Err != nil {
		peak := ru.Maxrss << 10 // KiB on Linux
		if atMemoryLimit(limit, peak, r.Stderr) {
			r.MemoryStopped = true
			if len(r.Stderr) > 0 && r.Stderr[len(r.Stderr)-1] != '\n' {
				r.Stderr = append(r.Stderr, '\n')
			}
			r.Stderr = append(r.Stderr, memoryLimitLine(limit, peak)...)
		}
	}
	return r
}

// newExecCmd is c as an exec.Cmd bound to ctx: when ctx ends, Cancel kills
// the whole process group with SIGKILL (tools that fork — sudo, shell
// wrappers — must not outlive the probe or keep its pipes open), and Wait
// returns at most WaitDelay after the child is gone.
func newExecCmd(ctx context.Context, c Command, stdout, stderr io.Writer) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.Path)
	cmd.Args, cmd.Dir, cmd.Stdout, cmd.Stderr = c.Argv, c.Dir, stdout, stderr
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild that keeps our pipes open after the child exits must
	// not hold the probe: stop waiting for the pipes after this.
	cmd.WaitDelay = 250 * time.Millisecond
	// Pdeathsig: a probe killed by SIGKILL (no handler runs) takes its
	// direct children with it. The kernel sends the signal when the OS
	// thread that forked the child exits, not the process; the Go runtime
	// only ends a thread when a goroutine exits while locked to it
	// (runtime.LockOSThread), which nothing in this binary does, so the
	// forking thread lives as long as the probe (docs/design-notes.md,
	// "Children of a killed probe").
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	switch {
	case c.StdinFrom != nil:
		cmd.Stdin = c.StdinFrom
	case c.Stdin != nil:
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	cmd.Env = childEnv(os.Environ(), c.Env)
	return cmd
}

// childEnv is the environment of a child: the probe's, then extra, with
// the relative entries of PATH dropped (docs/hardware.md). The probe never
// looks a tool up on a relative entry, and neither may the tools it starts:
// a Python script started through `env python3` must not run a python3
// that happens to lie in the working directory. A PATH left with no entry
// is set but empty; an unset PATH stays unset.
func childEnv(base, extra []string) []string {
	env := make([]string, 0, len(base)+len(extra))
	env = append(append(env, base...), extra...)
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + absolutePath(v)
		}
	}
	return env
}

// absolutePath is the PATH value v with its relative (and empty) entries
// dropped.
func absolutePath(v string) string {
	var keep []string
	for _, d := range filepath.SplitList(v) {
		if filepath.IsAbs(d) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// capped keeps the first max bytes written and discards the rest as it is
// read, reporting success so the copy keeps draining the child: memory stays
// at most max (the buffer grows with what is kept, never past max) whatever
// the child prints, and the excess costs one read into a shared scratch
// buffer. sink, when set, receives everything instead (Command.StdoutTo).
type capped struct {
	buf  []byte
	max  int
	cut  bool
	n    int64
	sink io.Writer
}

func (w *capped) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.sink != nil {
		_, _ = w.sink.Write(p)
		return len(p), nil
	}
	room := w.max - len(w.buf)
	if room < len(p) {
		w.cut = true
		p = p[:max(room, 0)]
	}
	if len(p) > 0 {
		if need := len(w.buf) + len(p); need > cap(w.buf) {
			// Grow by doubling, but never past the cap: a 4 MiB cap
			// holds at most 4 MiB, not the 8 MiB bytes.Buffer would.
			nb := make([]byte, len(w.buf), min(max(2*cap(w.buf), need, 512), w.max))
			copy(nb, w.buf)
			w.buf = nb
		}
		w.buf = append(w.buf, p...)
	}
	return len(p), nil
}

// discardBufs are the scratch buffers excess output is read into.
var discardBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// ReadFrom is what the copy from the child's pipe calls (io.Copy prefers
// it): once the cap is reached it reads straight into a scratch buffer and
// drops it, with no per-chunk copy.
func (w *capped) ReadFrom(r io.Reader) (int64, error) {
	bp := discardBufs.Get().(*[]byte)
	defer discardBufs.Put(bp)
	b := *bp
	var total int64
	for {
		n, err := r.Read(b)
		if n > 0 {
			total += int64(n)
			w.Write(b[:n])
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// Which finds name the way Python's shutil.which does, on an explicit list
// of directories: a name with a slash is checked as is; otherwise each
// directory in order, the first executable regular file wins.
func Which(path []string, name string) (string, bool) { return WhichWith(IsExecutable, path, name) }

// WhichWith is Which with its test of a candidate file (a capture records
// it, a replay answers it from the archive: capture.go).
func WhichWith(isExec func(string) bool, path []string, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	if filepath.Base(name) != name {
		return name, isExec(name)
	}
	for _, dir := range path {
		p := filepath.Join(dir, name)
		if isExec(p) {
			return p, true
		}
	}
	return "", false
}

// IsExecutable reports whether p is a regular file someone may execute.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 &&
		syscall.Access(p, 0x1 /* X_OK */) == nil
}

// SearchPath is the PATH the probe looks tools up on: the absolute entries
// of $PATH in order (relative entries would make the result depend on the
// working directory, so they are ignored); /bin:/usr/bin when PATH is unset,
// as Python's os.defpath; nothing when PATH is set but empty.
func SearchPath(env func(string) (string, bool)) []string {
	v, ok := env("PATH")
	if !ok {
		return []string{"/bin", "/usr/bin"}
	}
	var out []string
	for _, d := range filepath.SplitList(v) {
		if filepath.IsAbs(d) {
			out = append(out, d)
		}
	}
	return out
}
