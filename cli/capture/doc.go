package capture

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/brief"
	"aorta-probe/cli/output"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
	"aorta-probe/triage"
)

// setDoc takes the DOC of `aorta-probe --summary [DOC|-]` and
// `aorta-probe --field PATH [DOC|-]` from the positional arguments
// (docs/usage.md#output): the document to print from, "-" standard
// input; none, a fresh capture. flag names the printing flag for the
// messages. The capture's flags make no sense beside a DOC and are a
// usage error, as beside the DOC of metrics and labels (derive.go).
func (c *config) setDoc(flag string, positional []string) error {
	switch {
	case len(positional) > 1:
		return fmt.Errorf("unexpected extra argument %s (%s reads one DOC)", pyfmt.Repr(cli.Clip(positional[1])), flag)
	case len(positional) == 0:
		return nil
	case positional[0] == "":
		return errors.New("DOC must be a non-empty path (- for standard input)")
	}
	for _, f := range c.flags {
		if !slices.Contains([]string{"--summary", "--field", "-h", "--help"}, f) {
			return fmt.Errorf("%s is a capture flag: it applies only without DOC (a fresh capture)", f)
		}
	}
	c.doc = positional[0]
	return nil
}

// fromDocument prints what --summary or --field asks for of the document
// cfg.doc, read as diff reads one ("-": standard input), stopped
// promptly by a signal while it reads (cli.Interruptible). It returns the
// exit status: 0 printed; 1 when DOC cannot be read or is no env
// document, when the brief cannot read one of its values (a value of
// another type: aorta-probe validate DOC says which), when a --field
// names nothing in it, or when stdout cannot be written (one line each).
func fromDocument(cfg config, p cli.Process) int {
	return cli.Interruptible("", p.Signals, p.Stderr, func(w *cli.Watch) int {
		start := time.Now()
		d, err := triage.ReadWritten(cfg.doc, p.Stdin)
		if err != nil {
			fmt.Fprintf(p.Stderr, "%s: %v\n", cfg.cmd, triage.OneLine(err))
			return 1
		}
		var out []byte
		if cfg.summary {
			var snap schema.Snapshot
			if err := pyjson.Store(d.Root(), &snap); err != nil {
				fmt.Fprintf(p.Stderr, "%s: %s: the brief cannot read it: %v (aorta-probe validate %s says what is wrong)\n", cfg.cmd, cfg.doc, err, cfg.doc)
				return 1
			}
			out = []byte(brief.Summary(&snap))
		}
		// Every value is looked up before any is printed, as from a
		// capture (deliver).
		for _, f := range cfg.fields {
			v, err := output.Field(d.Root(), f)
			if err != nil {
				fmt.Fprintf(p.Stderr, "%s: %v\n", cfg.cmd, err)
				return 1
			}
			out = append(append(out, v...), '\n')
		}
		ctx, ok := w.BeginWrite()
		if !ok {
			select {} // a signal came first: cli.Interruptible reports it
		}
		if err := output.WriteStdout(ctx, output.WriteBy(start, machine.DefaultDeadline), p.Stdout, out); err != nil {
			return output.FailedStdout(p.Stderr, cfg.cmd, err, 1)
		}
		return 0
	})
}
