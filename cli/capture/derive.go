package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/probe"
	"aorta-probe/triage"
)

// Derived is a command that writes what it derives from one document
// (aorta-probe metrics, aorta-probe labels; docs/fleet.md):
//
//	aorta-probe NAME [DOC|-] [OUT] [flags]
//
// DOC is read as diff reads one ("-": standard input); without DOC, one
// collection runs with the capture's flags (flagTable) and its document is
// used. OUT (or -o/--output) is written atomically as the capture writes
// its document; without it, standard output. Exit status: 0 written, 1
// when DOC cannot be read, no capture could be made or OUT cannot be
// written (one line each), 2 for a usage error.
type Derived struct {
	Name  string
	Usage string
	// OutSuffix, when set, is how OUT's name must end (metrics: ".prom",
	// all node_exporter's textfile collector reads). Such a file is the
	// command's output, never a document: a lone argument ending in it is
	// OUT (a fresh capture), and a DOC ending in it is a usage error.
	OutSuffix string
	// Reads says why OUT must end in OutSuffix, in the usage error of an
	// OUT that does not.
	Reads string
	// Derive makes the output from the document.
	Derive func(*triage.Document) []byte
}

// onlyCapture are the capture's flags that make no sense for a derived
// command: they choose another output.
var onlyCapture = []string{"--summary", "--field", "--out-dir", "--version"}

// Run is the command.
func (c Derived) Run(args []string, p cli.Process) int {
	cfg, pos, err := parseFlags(args, false)
	if err == nil && cfg.help {
		return output.Help(p.Stdout, p.Stderr, "aorta-probe "+c.Name, c.Usage, 1)
	}
	if err == nil {
		pos, err = c.check(&cfg, pos)
	}
	if err != nil {
		fmt.Fprintf(p.Stderr, "aorta-probe %s: %v\n", c.Name, err)
		fmt.Fprintf(p.Stderr, "Try 'aorta-probe %s --help' for help.\n", c.Name)
		return 2
	}
	// OUT is checked before DOC is read or anything collected, as the
	// capture checks its destination (docs/usage.md, "Output").
	if cfg.out != "-" {
		if err := output.CheckWritable(cfg.out); err != nil {
			fmt.Fprintf(p.Stderr, "aorta-probe %s: failed to write %s: %s\n", c.Name, cfg.out, err)
			return 1
		}
	}
	if len(pos) > 0 {
		return cli.Interruptible(c.Name, p.Signals, p.Stderr, func(w *cli.Watch) int {
			start := time.Now()
			d, err := triage.ReadFile(pos[0], p.Stdin)
			if err != nil {
				fmt.Fprintf(p.Stderr, "aorta-probe %s: %v\n", c.Name, err)
				return 1
			}
			ctx, ok := w.BeginWrite()
			if !ok {
				select {} // a signal came first: cli.Interruptible reports it
			}
			return c.write(ctx, output.WriteBy(start, machine.DefaultDeadline), cfg.out, d, p)
		})
	}

	start := time.Now()
	w := cli.WatchSignals(p.Signals)
	defer w.Stop()
	snap, code := collect(w, "aorta-probe "+c.Name, cfg.options, nil, p.Stderr)
	if code != 0 {
		return code
	}
	if warn := probe.Warning(snap, os.LookupEnv); warn != "" {
		fmt.Fprintln(p.Stderr, warn)
	}
	d, err := triage.Parse("the capture", string(pyjson.Encode(snap)))
	if err != nil {
		fmt.Fprintf(p.Stderr, "aorta-probe %s: %v\n", c.Name, err)
		return 1
	}
	deadline := cfg.options.Deadline
	if deadline <= 0 {
		deadline = machine.DefaultDeadline
	}
	return c.write(w.Writing(), output.WriteBy(start, deadline), cfg.out, d, p)
}

// check takes DOC and OUT from the positional arguments, OUT into
// cfg.out ("-": stdout), and refuses what the command would silently
// ignore. It returns DOC as a list of at most one.
func (c Derived) check(cfg *config, pos []string) ([]string, error) {
	if i := slices.IndexFunc(cfg.flags, func(f string) bool { return slices.Contains(onlyCapture, f) }); i >= 0 {
		return nil, fmt.Errorf("%s is the capture's; %s writes its own output", cfg.flags[i], c.Name)
	}
	// The first positional argument is DOC, the rest OUT (as the capture
	// takes it: once, as OUT or -o); a lone one ending in OutSuffix is
	// OUT, of a fresh capture.
	var doc, out []string
	suffixed := c.OutSuffix != "" && len(pos) > 0 && strings.HasSuffix(pos[0], c.OutSuffix)
	switch {
	case suffixed && len(pos) == 1:
		out = pos
	case suffixed:
		return nil, fmt.Errorf("DOC %s ends in %s: %s writes such files and never reads one as a document (DOC comes first, then OUT)", pyfmt.Repr(cli.Clip(pos[0])), c.OutSuffix, c.Name)
	case len(pos) > 0:
		doc, out = pos[:1], pos[1:]
	}
	if err := cfg.setOut(out); err != nil {
		return nil, err
	}
	if len(doc) > 0 && doc[0] == "" {
		return nil, errors.New("DOC must be a non-empty path (- for standard input)")
	}
	if len(doc) > 0 {
		for _, f := range cfg.flags {
			if !slices.Contains([]string{"-o", "--output", "-h", "--help"}, f) {
				return nil, fmt.Errorf("%s is a capture flag: it applies only without DOC (a fresh capture)", f)
			}
		}
	}
	if len(doc) == 0 {
		if err := checkRoot(cfg.options.Root); err != nil {
			return nil, err
		}
	}
	if cfg.out != "-" && c.OutSuffix != "" && !strings.HasSuffix(cfg.out, c.OutSuffix) {
		return nil, fmt.Errorf("OUT %s must end in %s (%s)", pyfmt.Repr(cli.Clip(cfg.out)), c.OutSuffix, c.Reads)
	}
	return doc, validateBuck(cfg)
}

// write writes what c derives from d to out ("-": stdout) by the time by:
// exit 0, or 1 and one line when it could not be written.
func (c Derived) write(ctx context.Context, by time.Time, out string, d *triage.Document, p cli.Process) int {
	b := c.Derive(d)
	var err error
	if out == "-" {
		err = output.WriteStdout(ctx, by, p.Stdout, b)
	} else {
		err = output.WriteOutput(ctx, by, out, b)
	}
	switch {
	case err != nil && out == "-":
		return output.FailedStdout(p.Stderr, "aorta-probe "+c.Name, err, 1)
	case err != nil:
		fmt.Fprintf(p.Stderr, "aorta-probe %s: failed to write %s: %v\n", c.Name, out, err)
		return 1
	}
	return 0
}
