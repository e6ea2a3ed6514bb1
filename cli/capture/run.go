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
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/brief"
	"aorta-probe/cli/output"
	"aorta-probe/internal/archive"
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
	cfg, err := parseArgs(args)
	if err != nil {
		return usageError(p.Stderr, cfg.cmd, err)
	}
	if cfg.doc != "" && !cfg.help && !cfg.version {
		return fromDocument(cfg, p) // doc.go
	}
	return runWith(p.Signals, cfg, p.Stdout, p.Stderr, nil)
}

// recording is what `capture ARCHIVE` adds to a run (Record, capture.go):
// the recorder and the archive it is written to.
type recording struct {
	rec     *archive.Recorder
	archive string
}

// runWith runs the command line cfg: Main's, or Record's recording the
// collection into rc.rec when rc is not nil; the archive is then staged
// beside ARCHIVE once collected and put in place only once the document
// is written, removed when it cannot be (docs/capture.md). A --root that
// names a capture archive is replayed by probe.CollectRoot.
func runWith(sigs <-chan os.Signal, cfg config, stdout, stderr io.Writer, rc *recording) int {
	start := time.Now()
	w := cli.WatchSignals(sigs)
	defer w.Stop()

	if !cfg.help && !cfg.version {
		err := checkRoot(cfg.options.Root)
		if err == nil {
			err = checkPython(cfg.options)
		}
		if err != nil {
			return usageError(stderr, cfg.cmd, err)
		}
	}
	deadline := cfg.options.Deadline
	if deadline <= 0 {
		deadline = machine.DefaultDeadline
	}
	// emit writes to stdout; a failed or short write is exit 1.
	emit := func(b []byte) int {
		if err := output.WriteStdout(w.Writing(), output.WriteBy(start, deadline), stdout, b); err != nil {
			return output.FailedStdout(stderr, cfg.cmd, err, 1)
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
			fmt.Fprintf(stderr, "%s: failed to write %s: %s\n", cfg.cmd, cfg.out, err)
			return 1
		}
	}
	var rec *archive.Recorder
	if rc != nil {
		if err := output.CheckWritable(rc.archive); err != nil {
			fmt.Fprintf(stderr, "%s: failed to write %s: %s\n", cfg.cmd, rc.archive, err)
			return 1
		}
		rec = rc.rec
	}

	snap, code := collect(w, cfg.cmd, cfg.options, rec, stderr)
	if code != 0 {
		return code
	}
	var staged *output.Staged
	if rc != nil {
		var err error
		if staged, err = rc.stage(); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cfg.cmd, err)
			return 1
		}
		// Never silently: what --redact-hostname left in the archive.
		for _, l := range rc.rec.Unredacted() {
			fmt.Fprintf(stderr, "%s: --redact-hostname: %s\n", cfg.cmd, l)
		}
	}
	code = deliver(cfg, snap, emit, w.Writing(), output.WriteBy(start, deadline), stderr)
	if staged != nil {
		// The archive goes in place only beside a document: a run that
		// failed to write it leaves nothing (docs/capture.md).
		if code != 0 {
			staged.Abort()
		} else if err := staged.Commit(w.Writing(), output.WriteBy(start, deadline)); err != nil {
			fmt.Fprintf(stderr, "%s: failed to write %s: %s\n", cfg.cmd, rc.archive, err)
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
	case c.summary || len(c.fields) > 0:
		return "-"
	case c.outDir != "":
		return outDirPath(c.outDir, os.LookupEnv, os.Hostname)
	}
	return c.out
}

// deliver writes what the command line asked for of snap: the --field
// values, the --summary brief, or the document to cfg.out (already the
// destination). It returns the exit status.
func deliver(cfg config, snap *schema.Snapshot, emit func([]byte) int, writing context.Context, by time.Time, stderr io.Writer) int {
	if warn := probe.Warning(snap, os.LookupEnv); warn != "" {
		fmt.Fprintln(stderr, warn)
	}

	switch {
	case len(cfg.fields) > 0:
		// Every value is looked up before any is printed: one that fails
		// is its line on stderr, exit 1, and nothing on stdout.
		var out []byte
		for _, f := range cfg.fields {
			v, err := output.Field(snap, f)
			if err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", cfg.cmd, err)
				return 1
			}
			out = append(append(out, v...), '\n')
		}
		return emit(out)
	case cfg.summary:
		return emit([]byte(brief.Summary(snap)))
	}

	doc := pyjson.Encode(snap)
	if cfg.out == "-" {
		return emit(append(doc, '\n'))
	}
	if err := output.WriteOutput(writing, by, cfg.out, doc); err != nil {
		fmt.Fprintf(stderr, "%s: failed to write %s: %s\n", cfg.cmd, cfg.out, err)
		return 1
	}
	return 0
}

// collect is one collection with opt, recorded into rec when it is not
// nil; the status is 0, or the exit status when no document could be made
// (2: --root names a file that is no capture archive, or a damaged one),
// its line written to stderr and naming cmd.
func collect(w *cli.Watch, cmd string, opt probe.Options, rec *archive.Recorder, stderr io.Writer) (*schema.Snapshot, int) {
	opt.Version = cli.Version()
	opt.Record = rec
	snap, err := probe.CollectRoot(w.Collect, opt)
	switch {
	case errors.Is(err, archive.ErrNotArchive):
		return nil, usageError(stderr, cmd, fmt.Errorf("--root %v", err))
	case errors.Is(err, archive.ErrDamaged):
		// One line naming what is wrong: no --help helps here
		// (docs/capture.md, "Integrity").
		fmt.Fprintf(stderr, "%s: --root %v\n", cmd, err)
		return nil, 2
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, 1
	}
	return snap, 0
}

// usageError reports a bad command line of cmd ("aorta-probe" or
// "aorta-probe capture"): one line and the hint to cmd's help, exit 2.
func usageError(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
	fmt.Fprintf(stderr, "Try '%s --help' for help.\n", cmd)
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

// checkPython refuses an explicit --python that names no interpreter
// (docs/python.md#2-choosing-the-interpreter), before anything is
// collected, as checkRoot does a missing --root: a path (a name with a
// '/', relative to the working directory) must exist and not be a
// directory; a bare name must be found on the search path the capture
// looks tools up on (the absolute entries of $PATH), and under a --root
// DIR, which runs no tool found by name, a bare name finds nothing. An
// interpreter that exists but cannot run stays a partial reason of the
// document, as does a $AORTA_PROBE_PYTHON or a default python3 that is
// missing. A replay (--root ARCHIVE) runs no interpreter: its --python
// names one of the captured machine, and the replay says whether the
// archive holds its answer.
func checkPython(opt probe.Options) error {
	name := opt.Python.Interpreter
	if name == "" || opt.Python.Disabled || isArchive(opt.Root) {
		return nil
	}
	if !strings.Contains(name, "/") {
		if opt.Root != "" && filepath.Clean(opt.Root) != "/" {
			return fmt.Errorf("--python %s: a bare name is not looked up under --root %s (no search path); give the interpreter's path", pyfmt.Repr(cli.Clip(name)), pyfmt.Repr(cli.Clip(opt.Root)))
		}
		if _, ok := machine.Which(machine.SearchPath(os.LookupEnv), name); !ok {
			return fmt.Errorf("--python %s: not found on PATH", pyfmt.Repr(cli.Clip(name)))
		}
		return nil
	}
	fi, err := os.Stat(name)
	switch {
	case err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)):
		return fmt.Errorf("--python: %s", output.PyError(err, cli.Clip(name)))
	case err == nil && fi.IsDir():
		return fmt.Errorf("--python %s is a directory, not an interpreter", pyfmt.Repr(cli.Clip(name)))
	}
	return nil
}

// isArchive reports whether a --root names a regular file: a capture
// archive to replay (checkRoot refuses any other file).
func isArchive(root string) bool {
	fi, err := os.Stat(root)
	return root != "" && err == nil && fi.Mode().IsRegular()
}
