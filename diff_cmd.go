package main

import (
	"io"
	"os"

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
	{"validate", func(_ <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return runValidate(args, os.Stdin, stdout, stderr) // validate_cmd.go, docs/schema.md
	}},
	{"diff", func(_ <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return triage.Main(args, triage.NewIO(os.Stdin, stdout, stderr)) // docs/triage.md
	}},
	{"env-names", func(_ <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
		return triage.EnvNamesMain(args, os.Environ(), triage.NewIO(os.Stdin, stdout, stderr)) // docs/triage.md
	}},
	{"capture", runCapture}, // capture_cmd.go, docs/capture.md
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
