package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
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
	// CheckOut, when set, refuses an OUT path (a usage error).
	CheckOut func(out string) error
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
		io.WriteString(p.Stdout, c.Usage)
		return 0
	}
	if err == nil {
		err = c.check(&cfg, pos)
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
			return c.write(ctx, output.WriteBy(start, probe.DefaultDeadline), cfg.out, d, p)
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
		deadline = probe.DefaultDeadline
	}
	return c.write(w.Writing(), output.WriteBy(start, deadline), cfg.out, d, p)
}

// check takes DOC and OUT from the positional arguments into cfg.out
// ("-": stdout) and refuses what the command would silently ignore.
func (c Derived) check(cfg *config, pos []string) error {
	if i := slices.IndexFunc(cfg.flags, func(f string) bool { return slices.Contains(onlyCapture, f) }); i >= 0 {
		return fmt.Errorf("%s is the capture's; %s writes its own output", cfg.flags[i], c.Name)
	}
	// The first positional argument is DOC, the rest OUT (as the capture
	// takes it: once, as OUT or -o).
	var out []string
	if len(pos) > 0 {
		out = pos[1:]
	}
	if err := cfg.setOut(out); err != nil {
		return err
	}
	if len(pos) > 0 && pos[0] == "" {
		return errors.New("DOC must be a non-empty path (- for standard input)")
	}
	if len(pos) > 0 {
		for _, f := range cfg.flags {
			if !slices.Contains([]string{"-o", "--output", "-h", "--help"}, f) {
				return fmt.Errorf("%s is a capture flag: it applies only without DOC (a fresh capture)", f)
			}
		}
	}
	if len(pos) == 0 {
		if err := checkRoot(cfg.options.Root); err != nil {
			return err
		}
	}
	if cfg.out != "-" && c.CheckOut != nil {
		if err := c.CheckOut(cfg.out); err != nil {
			return err
		}
	}
	return validateBuck(cfg)
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
	if err != nil {
		where := out
		if out == "-" {
			where = "to stdout"
		}
		fmt.Fprintf(p.Stderr, "aorta-probe %s: failed to write %s: %v\n", c.Name, where, err)
		return 1
	}
	return 0
}
