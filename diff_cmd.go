package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

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
		return interruptible("validate", sigs, stderr, func(*signalWatch) int {
			return validate.Run(args, os.Stdin, stdout, stderr) // validate_cmd.go, docs/schema.md
		})
	}},
	{"diff", func(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return interruptible("diff", sigs, stderr, func(*signalWatch) int {
			return triage.Main(args, triage.NewIO(os.Stdin, stdout, stderr)) // docs/triage.md
		})
	}},
	{"env-names", func(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return interruptible("env-names", sigs, stderr, func(w *signalWatch) int {
			tio := triage.NewIO(os.Stdin, stdout, stderr)
			tio.WriteOut = envNamesWriter(w, stdout)
			return triage.EnvNamesMain(args, os.Environ(), tio) // docs/triage.md
		})
	}},
	{"capture", runCapture}, // capture_cmd.go, docs/capture.md
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
		return runWith(sigs, []string{"--help"}, stdout, stderr, replayHook)
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

// interruptible runs body, a subcommand that reads or writes documents,
// so that SIGINT, SIGTERM and SIGHUP stop it promptly whatever it waits
// for (a FIFO nobody writes, a read of a slow file): a signal that comes
// before body writes its output ends the command at once with one line
// on stderr, `aorta-probe NAME: interrupted by SIGTERM`, and the status
// of a shell's killed job, 128+N (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
// Once body writes (signalWatch.beginWrite), the write ends the way the
// capture's does: finished, or abandoned signalGrace after the signal
// with exit 1 (docs/usage.md, "Deadline and signals"). A body left
// blocked stays in its goroutine; the process exits right after.
func interruptible(name string, sigs <-chan os.Signal, stderr io.Writer, body func(w *signalWatch) int) int {
	w := watchSignals(sigs)
	defer w.stop()
	done := make(chan int, 1)
	go func() { done <- body(w) }()
	select {
	case code := <-done:
		return code
	case <-w.collect.Done():
		if w.writeStarted() {
			return <-done
		}
	}
	sig := syscall.SIGTERM
	if ie, ok := context.Cause(w.collect).(interruptedError); ok {
		if s, ok := ie.sig.(syscall.Signal); ok {
			sig = s
		}
	}
	fmt.Fprintf(stderr, "aorta-probe %s: interrupted by %s\n", name, signalName(sig))
	return 128 + int(sig)
}

// envNamesWriter is env-names' output: the capture's writers (a failed
// stdout, OUT a directory, a FIFO nobody reads: exit 1 and one line),
// bounded by the command's signals.
func envNamesWriter(w *signalWatch, stdout io.Writer) func(string, []byte) error {
	start := time.Now()
	return func(out string, b []byte) error {
		ctx, ok := w.beginWrite()
		if !ok {
			select {} // a signal came first: interruptible reports it
		}
		by := writeBy(start, probe.DefaultDeadline)
		if out == "-" {
			return output.WriteStdout(ctx, by, stdout, b)
		}
		return output.WriteOutput(ctx, by, out, b)
	}
}
