package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"aorta-probe/internal/cli"
	"aorta-probe/internal/cli/capture"
	"aorta-probe/internal/cli/output"
	"aorta-probe/internal/cli/validate"
	"aorta-probe/probe"
	"aorta-probe/triage"
)

// subcommandTable is every command that is not a plain capture: its first
// argument and what runs it. The usage text (flags.go) lists each one
// with its purpose and its doc (TestUsageNamesSubcommands). A capture
// written to a file named like a subcommand needs a path: ./diff.
var subcommandTable = []struct {
	name string
	run  func(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int
}{
	{"validate", func(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return cli.Interruptible("validate", sigs, stderr, func(*cli.Watch) int {
			return validate.Run(args, os.Stdin, stdout, stderr) // validate_cmd.go, docs/schema.md
		})
	}},
	{"diff", func(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return cli.Interruptible("diff", sigs, stderr, func(*cli.Watch) int {
			return triage.Main(args, triage.NewIO(os.Stdin, stdout, stderr)) // docs/triage.md
		})
	}},
	{"env-names", func(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return cli.Interruptible("env-names", sigs, stderr, func(w *cli.Watch) int {
			tio := triage.NewIO(os.Stdin, stdout, stderr)
			tio.WriteOut = envNamesWriter(w, stdout)
			return triage.EnvNamesMain(args, os.Environ(), tio) // docs/triage.md
		})
	}},
	{"capture", capture.Run}, // internal/cli/capture, docs/capture.md
}

// help reads subcommandTable, so it joins it here (an entry in the
// literal would make the table's initialisation refer to itself).
func init() {
	subcommandTable = append(subcommandTable, struct {
		name string
		run  func(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int
	}{"help", runHelp})
}

// subcommand runs the command named by args[0] when it is one of
// subcommandTable; ok is false for every other command line, which is a
// capture.
func subcommand(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	for _, c := range subcommandTable {
		if c.name == args[0] {
			return c.run(sigs, args[1:], stdout, stderr), true
		}
	}
	return 0, false
}

// runHelp is `aorta-probe help [SUBCOMMAND]`: the usage text, or the
// subcommand's own (its --help).
func runHelp(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		return capture.Main(sigs, []string{"--help"}, stdout, stderr)
	case len(args) > 1:
		return helpUsageError(stderr, fmt.Sprintf("takes at most one subcommand (got %d arguments)", len(args)))
	}
	for _, c := range subcommandTable {
		if c.name == args[0] && c.name != "help" {
			return c.run(sigs, []string{"--help"}, stdout, stderr)
		}
	}
	return helpUsageError(stderr, fmt.Sprintf("no subcommand %q (validate, diff, env-names, capture)", args[0]))
}

func helpUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "aorta-probe help: %s\n", msg)
	fmt.Fprintln(stderr, "Try 'aorta-probe --help' for help.")
	return 2
}

// envNamesWriter is env-names' output: the capture's writers (a failed
// stdout, OUT a directory, a FIFO nobody reads: exit 1 and one line),
// bounded by the command's signals.
func envNamesWriter(w *cli.Watch, stdout io.Writer) func(string, []byte) error {
	start := time.Now()
	return func(out string, b []byte) error {
		ctx, ok := w.BeginWrite()
		if !ok {
			select {} // a signal came first: interruptible reports it
		}
		by := output.WriteBy(start, probe.DefaultDeadline)
		if out == "-" {
			return output.WriteStdout(ctx, by, stdout, b)
		}
		return output.WriteOutput(ctx, by, out, b)
	}
}
