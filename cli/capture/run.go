// Package capture is the capture's command line: the plain
// `aorta-probe [OUT|-] [flags]` (Main) and `aorta-probe capture ARCHIVE`
// (Record): the flags (one table), --out-dir naming, one collection
// through package probe, and the document written through package output
// (docs/usage.md, docs/capture.md).
package capture

import (
	"context"
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
	return runWith(p.Signals, args, p.Stdout, p.Stderr, nil)
}

// recording is what `capture ARCHIVE` adds to a run (Record, capture.go):
// the recorder and the archive it is written to.
type recording struct {
	rec     *machine.Recorder
	archive string
}

// runWith is Main recording the collection into rc.rec when rc is not
// nil; the archive is then staged beside ARCHIVE once collected and put
// in place only once the document is written, removed when it cannot be
// (docs/capture.md). A --root that names a capture archive is replayed
// by probe.CollectRoot.
func runWith(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer, rc *recording) int {
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

	// Every file this run will write is checked before anything is
	// collected (docs/usage.md, "Output"): a missing directory, a
	// read-only one or a name too long fails at once, not after the
	// whole collection.
	cfg.out = cfg.destination()
	if cfg.out != "-" {
		if err := output.CheckWritable(cfg.out); err != nil {
			fmt.Fprintf(stderr, "aorta-probe: failed to write %s: %s\n", cfg.out, err)
			return 1
		}
	}
	if rc != nil {
		if err := output.CheckWritable(rc.archive); err != nil {
			fmt.Fprintf(stderr, "aorta-probe: failed to write %s: %s\n", rc.archive, err)
			return 1
		}
	}

	opt := cfg.options
	opt.Version = cli.Version()
	if rc != nil {
		opt.Record = rc.rec
	}
	snap, err := probe.CollectRoot(w.Collect, opt)
	switch {
	case errors.Is(err, machine.ErrNotArchive):
		return usageError(stderr, fmt.Errorf("--root %v", err))
	case errors.Is(err, machine.ErrDamaged):
		// One line naming what is wrong: no --help helps here
		// (docs/capture.md, "Integrity").
		fmt.Fprintf(stderr, "aorta-probe: --root %v\n", err)
		return 2
	}
	var staged *output.Staged
	if err == nil && rc != nil {
		staged, err = rc.stage()
	}
	if err != nil {
		fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
		return 1
	}
	code := deliver(cfg, snap, emit, w.Writing(), output.WriteBy(start, deadline), stderr)
	if staged != nil {
		// The archive goes in place only beside a document: a run that
		// failed to write it leaves nothing (docs/capture.md).
		if code != 0 {
			staged.Abort()
		} else if err := staged.Commit(w.Writing(), output.WriteBy(start, deadline)); err != nil {
			fmt.Fprintf(stderr, "aorta-probe: failed to write %s: %s\n", rc.archive, err)
			code = 1
		}
	}
	return code
}

// destination is where the document goes: OUT or -o, DIR/NODE.json for
// --out-dir (outdir.go), "-" for stdout (also with --summary and
// --field, which print there).
func (c *config) destination() string {
	switch {
	case c.summary || c.field != nil:
		return "-"
	case c.outDir != "":
		return outDirPath(c.outDir, os.LookupEnv, os.Hostname)
	}
	return c.out
}

// deliver writes what the command line asked for of snap: the --field
// value, the --summary brief, or the document to cfg.out (already the
// destination). It returns the exit status.
func deliver(cfg config, snap *schema.Snapshot, emit func([]byte) int, writing context.Context, by time.Time, stderr io.Writer) int {
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
	if cfg.out == "-" {
		return emit(append(doc, '\n'))
	}
	if err := output.WriteOutput(writing, by, cfg.out, doc); err != nil {
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
