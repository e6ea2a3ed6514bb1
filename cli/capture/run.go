// Package capture is the capture's command line: the plain
// `aorta-probe [OUT|-] [flags]` (Main) and `aorta-probe capture ARCHIVE`
// (Record): the flags (one table), --out-dir naming, one collection
// through package probe, and the document written through package output
// (docs/usage.md, docs/capture.md).
package capture

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/brief"
	"aorta-probe/cli/output"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/probe"
	"aorta-probe/schema"
)

// Main is the plain capture, `aorta-probe [OUT|-] [flags]`: parse,
// collect, write. It returns the exit status: 0 when the document was
// written (partial or not), 1 when it could not be, 2 for a usage error.
// The first signal of p ends the collection early; one received while the
// output waits for its reader abandons the write.
func Main(args []string, p cli.Process) int {
	return runWith(p.Signals, args, p.Stdout, p.Stderr, nil, nil)
}

// runWith is Main recording the collection into rec when it is not nil;
// archive then writes what rec recorded (Record, capture.go). A --root that
// names a capture archive is replayed by probe.CollectRoot.
func runWith(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer, rec *machine.Recorder, archive func() error) int {
	start := time.Now()
	w := cli.WatchSignals(sigs)
	defer w.Stop()

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
		if err := output.WriteStdout(w.Writing(), output.WriteBy(start, deadline), stdout, b); err != nil {
			fmt.Fprintf(stderr, "aorta-probe: failed to write to stdout: %s\n", err)
			return 1
		}
		return 0
	}
	switch {
	case cfg.help:
		return emit([]byte(Usage))
	case cfg.version:
		return emit(fmt.Appendf(nil, "aorta-probe %s (schema %s, %s)\n", cli.Version(), schema.Version, runtime.Version()))
	}

	snap, code := collect(w, cfg.options, rec, stderr)
	if code != 0 {
		return code
	}
	if archive != nil {
		if err := archive(); err != nil {
			fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
			return 1
		}
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
	if err := output.WriteOutput(w.Writing(), output.WriteBy(start, deadline), cfg.out, doc); err != nil {
		fmt.Fprintf(stderr, "aorta-probe: failed to write %s: %s\n", cfg.out, err)
		return 1
	}
	return 0
}

// collect is one collection with opt, recorded into rec when it is not
// nil; the status is 0, or the exit status when no document could be made
// (2: --root names a file that is no capture archive), its line written to
// stderr.
func collect(w *cli.Watch, opt probe.Options, rec *machine.Recorder, stderr io.Writer) (*schema.Snapshot, int) {
	opt.Version = cli.Version()
	opt.Record = rec
	snap, err := probe.CollectRoot(w.Collect, opt)
	if errors.Is(err, machine.ErrNotArchive) {
		return nil, usageError(stderr, fmt.Errorf("--root %v", err))
	}
	if err != nil {
		fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
		return nil, 1
	}
	return snap, 0
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
