// Package envnames is `aorta-probe env-names [OUT|-]`: the names (never
// the values) of this process's environment variables, for
// `aorta-probe diff --env-markers` (docs/triage.md).
package envnames

import (
	"io"
	"os"
	"time"

	"aorta-probe/internal/cli"
	"aorta-probe/internal/cli/output"
	"aorta-probe/probe"
	"aorta-probe/triage"
)

// Run is `aorta-probe env-names [OUT|-]`, stopped promptly by a signal
// (cli.Interruptible); the names are written as the capture writes its
// document.
func Run(args []string, p cli.Process) int {
	return cli.Interruptible("env-names", p.Signals, p.Stderr, func(w *cli.Watch) int {
		tio := triage.NewIO(p.Stdin, p.Stdout, p.Stderr)
		tio.WriteOut = writer(w, p.Stdout)
		return triage.EnvNamesMain(args, os.Environ(), tio)
	})
}

// writer is env-names' output: the capture's writers (a failed
// stdout, OUT a directory, a FIFO nobody reads: exit 1 and one line),
// bounded by the command's signals.
func writer(w *cli.Watch, stdout io.Writer) func(string, []byte) error {
	start := time.Now()
	return func(out string, b []byte) error {
		ctx, ok := w.BeginWrite()
		if !ok {
			select {} // a signal came first: cli.Interruptible reports it
		}
		by := output.WriteBy(start, probe.DefaultDeadline)
		if out == "-" {
			return output.WriteStdout(ctx, by, stdout, b)
		}
		return output.WriteOutput(ctx, by, out, b)
	}
}
