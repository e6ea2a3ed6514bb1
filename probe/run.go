package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	// Timeout bounds this command; the collection deadline bounds it too.
	Timeout time.Duration
	// MaxOutput caps each of stdout and stderr; 0 means DefaultMaxOutput.
	MaxOutput int
}

// Result is what a command did.
type Result struct {
	Stdout, Stderr []byte
	// ExitCode is the exit status, or -N when the child died of signal N
	// (the convention of Python's subprocess, which the reason texts embed).
	// It is meaningful only when Err is nil or an *ExitError.
	ExitCode int
	// Err is nil on exit status 0. Otherwise: ErrTimeout, an *ExitError for
	// a non-zero status, or the start failure (exec.ErrNotFound,
	// permission, …) wrapped with the argv.
	Err error
	// Truncated is true when MaxOutput cut stdout or stderr.
	Truncated bool
	Duration  time.Duration
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

// Per-command timeouts of the spec (core.md §3.7): SHORT_TIMEOUT_SEC and the
// long one of rdhc, rocm_agent_enumerator, nm and c++filt.
const (
	ShortTimeout = 5 * time.Second
	LongTimeout  = 30 * time.Second
)

// DefaultMaxOutput caps each output stream of a command. Real outputs of the
// tools run here are kilobytes (nm of libtorch_hip: tens of MiB, which its
// caller raises the cap for); anything beyond is discarded while the child is
// still drained, so it never blocks on a full pipe.
const DefaultMaxOutput = 4 << 20

// ExecRunner runs commands as real processes: stdin from /dev/null unless
// given, its own process group, the whole group killed with SIGKILL on
// timeout, stdout and stderr captured separately and capped.
type ExecRunner struct{}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, c Command) Result {
	start := time.Now()
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	max := c.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	stdout, stderr := &capped{max: max}, &capped{max: max}
	if !filepath.IsAbs(c.Path) {
		return Result{Err: fmt.Errorf("%q: executable path %q is not absolute", c.Argv, c.Path), ExitCode: -1}
	}
	cmd := &exec.Cmd{
		Path:   c.Path,
		Args:   c.Argv,
		Dir:    c.Dir,
		Stdout: stdout,
		Stderr: stderr,
		// A grandchild that keeps our pipes open after the child exits
		// must not hold the probe: stop waiting for the pipes after this.
		WaitDelay:   250 * time.Millisecond,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	if err := cmd.Start(); err != nil {
		return Result{Err: fmt.Errorf("%q: %w", c.Argv, err), ExitCode: -1, Duration: time.Since(start)}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		// Kill the whole group: tools that fork (sudo, shell wrappers)
		// must not outlive the probe or keep its pipes open.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return Result{
			Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes(),
			Err: ErrTimeout, ExitCode: -int(syscall.SIGKILL),
			Truncated: stdout.cut || stderr.cut, Duration: time.Since(start),
		}
	}
	// The child exited; reap anything it left in its group holding our pipes.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	r := Result{
		Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes(),
		Truncated: stdout.cut || stderr.cut, Duration: time.Since(start),
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
	return r
}

// capped keeps the first max bytes written and discards the rest, reporting
// success so the copy goroutine keeps draining the child.
type capped struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (w *capped) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room < len(p) {
		w.cut = true
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return w.buf.Write(p)
}

// which finds name the way Python's shutil.which does, on an explicit list
// of directories: a name with a slash is checked as is; otherwise each
// directory in order, the first executable regular file wins.
func which(path []string, name string) (string, bool) { return whichWith(isExecutable, path, name) }

// whichWith is which with its test of a candidate file (a capture records
// it, a replay answers it from the archive: capture.go).
func whichWith(isExec func(string) bool, path []string, name string) (string, bool) {
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

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 &&
		syscall.Access(p, 0x1 /* X_OK */) == nil
}

// searchPath is the PATH the probe looks tools up on: the absolute entries
// of $PATH in order (relative entries would make the result depend on the
// working directory, so they are ignored); /bin:/usr/bin when PATH is unset,
// as Python's os.defpath; nothing when PATH is set but empty.
func searchPath(env func(string) (string, bool)) []string {
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
