// Command aorta-probe captures the environment a GPU workload runs in and
// writes it as one env.json document, schema 1.16 of the aorta probe.
//
//	aorta-probe [OUT|-] [flags]
//	aorta-probe validate FILE...
//	aorta-probe diff [--fleet|--env-markers] A B...
//	aorta-probe env-names [OUT|-]
//	aorta-probe capture ARCHIVE [--redact-hostname] [OUT|-] [flags]
//
// See docs/usage.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"aorta-probe/internal/cli/brief"
	"aorta-probe/internal/cli/output"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/signals" // first: installs the signal handler (see the package)
	"aorta-probe/probe"
	"aorta-probe/schema"
)

// version is set at link time (-ldflags "-X main.version=…"); otherwise the
// module version recorded by the go command, else "dev".
var version = ""

func main() {
	stdout := io.Writer(os.Stdout)
	if output.StdoutClosedAtStart() {
		stdout = output.ClosedStdout{}
	}
	// A tool's descendant that leaves its process group (setsid) is
	// re-parented here when its parent exits, and killed and reaped after
	// each command and before exit (probe/reap.go, docs/usage.md). Where
	// prctl is refused, group kills remain the only cleanup.
	_ = probe.BecomeSubreaper()
	code := run(signals.Received(), os.Args[1:], stdout, os.Stderr)
	probe.ReapOrphans()
	os.Exit(code)
}

// run is the whole program behind main: parse, collect, write. It returns
// the exit status: 0 when the document was written (partial or not), 1 when
// it could not be, 2 for a usage error. sigs delivers SIGTERM, SIGINT and
// SIGHUP (nil: none): the first ends the collection early; one received
// while the output waits for its reader abandons the write.
func run(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
	if code, ok := subcommand(sigs, args, stdout, stderr); ok { // diff_cmd.go
		return code
	}
	return runWith(sigs, args, stdout, stderr, replayHook)
}

// runWith is run with a hook around the collection (capture_cmd.go): it
// may change the options, and what it returns runs after the collection.
func runWith(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer, hook collectHook) int {
	start := time.Now()
	w := watchSignals(sigs)
	defer w.stop()

	cfg, err := parseArgs(args)
	if err == nil && !cfg.help && !cfg.version {
		err = checkRoot(cfg.options.Root)
	}
	if err != nil {
		return usageError(stderr, err)
	}
	deadline := cfg.options.Deadline
	if deadline <= 0 {
		deadline = probe.DefaultDeadline
	}
	// emit writes to stdout; a failed or short write is exit 1.
	emit := func(b []byte) int {
		if err := output.WriteStdout(w.writing(), writeBy(start, deadline), stdout, b); err != nil {
			fmt.Fprintf(stderr, "aorta-probe: failed to write to stdout: %s\n", err)
			return 1
		}
		return 0
	}
	switch {
	case cfg.help:
		return emit([]byte(usage))
	case cfg.version:
		return emit(fmt.Appendf(nil, "aorta-probe %s (schema %s, %s)\n", binaryVersion(), schema.Version, runtime.Version()))
	}

	opt := cfg.options
	opt.Version = binaryVersion()
	opt, after, err := hook(opt)
	if errors.Is(err, probe.ErrNotArchive) {
		return usageError(stderr, fmt.Errorf("--root %v", err))
	}
	if err != nil {
		fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
		return 1
	}
	snap := probe.Collect(w.collect, opt)
	if err := after(snap); err != nil {
		fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
		return 1
	}
	if warn := probe.Warning(snap, os.LookupEnv); warn != "" {
		fmt.Fprintln(stderr, warn)
	}

	switch {
	case cfg.field != nil:
		out, err := output.Field(snap, *cfg.field)
		if err != nil {
			fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
			return 1
		}
		return emit(append(out, '\n'))
	case cfg.summary:
		text := brief.Brief(snap) + "\n"
		if snap.Partial {
			text += "\nPartial reasons:\n"
			for _, r := range snap.PartialReasons {
				text += "  - " + r + "\n"
			}
		}
		return emit([]byte(text))
	}

	doc := pyjson.Encode(snap)
	if cfg.outDir != "" {
		cfg.out = outDirPath(cfg.outDir, os.LookupEnv, os.Hostname) // outdir.go
	}
	if cfg.out == "-" {
		return emit(append(doc, '\n'))
	}
	if err := output.WriteOutput(w.writing(), writeBy(start, deadline), cfg.out, doc); err != nil {
		fmt.Fprintf(stderr, "aorta-probe: failed to write %s: %s\n", cfg.out, err)
		return 1
	}
	return 0
}

// usageError reports a bad command line: one line and the hint, exit 2.
func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
	fmt.Fprintln(stderr, "Try 'aorta-probe --help' for help.")
	return 2
}

// checkRoot refuses a --root that names nothing to describe: it must be a
// directory (a mounted image, a host root) or a regular file, a capture
// archive, which the replay then reads (docs/usage.md). A root that exists
// but cannot be examined (permission) is described as far as it can be:
// the capture never fails on a permission.
func checkRoot(root string) error {
	if root == "" {
		return nil
	}
	fi, err := os.Stat(root)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return nil
	case err != nil:
		return fmt.Errorf("--root: %s", output.PyError(err, root))
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return fmt.Errorf("--root %s is neither a directory nor a capture archive", pyfmt.Repr(root))
	}
	return nil
}

// writeBy is when a write that waits for its reader (a FIFO nobody opened,
// a pipe nobody drains) is abandoned: at the deadline counted from the
// start, and never less than minWriteWait after the collection.
func writeBy(start time.Time, deadline time.Duration) time.Time {
	by, least := start.Add(deadline), time.Now().Add(minWriteWait)
	if by.Before(least) {
		return least
	}
	return by
}

// minWriteWait is the least time a reader is given once the document is
// ready (docs/usage.md).
const minWriteWait = 5 * time.Second

// signalWatch turns the signals into the two things they end: the
// collection (the first signal, however early it came) and a write that
// waits for its reader (a signal received once the write began: one that
// ended the collection must not also abandon the document it produced).
type signalWatch struct {
	collect context.Context
	done    chan struct{}

	mu       sync.Mutex
	write    context.Context // nil until writing is first called
	endWrite context.CancelCauseFunc
}

func watchSignals(sigs <-chan os.Signal) *signalWatch {
	ctx, endCollect := context.WithCancelCause(context.Background())
	w := &signalWatch{collect: ctx, done: make(chan struct{})}
	go func() {
		defer endCollect(nil)
		for {
			select {
			case s := <-sigs:
				err := interruptedError{s}
				endCollect(err)
				w.mu.Lock()
				if w.endWrite != nil {
					w.endWrite(err)
				}
				w.mu.Unlock()
			case <-w.done:
				return
			}
		}
	}()
	return w
}

// writing returns the context of the write phase, which a signal received
// from now on cancels.
func (w *signalWatch) writing() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.write == nil {
		w.write, w.endWrite = context.WithCancelCause(context.Background())
	}
	return w.write
}

// beginWrite is writing for a subcommand (interruptible): ok is false
// when a signal already came, which then ends the command instead.
func (w *signalWatch) beginWrite() (ctx context.Context, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.collect.Err() != nil {
		return nil, false
	}
	if w.write == nil {
		w.write, w.endWrite = context.WithCancelCause(context.Background())
	}
	return w.write, true
}

// writeStarted reports whether writing or beginWrite was called.
func (w *signalWatch) writeStarted() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write != nil
}

func (w *signalWatch) stop() {
	close(w.done)
	w.mu.Lock()
	if w.endWrite != nil {
		w.endWrite(nil)
	}
	w.mu.Unlock()
}

// interruptedError is the cause of a cancellation by a signal.
type interruptedError struct{ sig os.Signal }

func (e interruptedError) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(s os.Signal) string {
	switch s.String() {
	case "terminated":
		return "SIGTERM"
	case "interrupt":
		return "SIGINT"
	case "hangup":
		return "SIGHUP"
	}
	return s.String()
}

func binaryVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
