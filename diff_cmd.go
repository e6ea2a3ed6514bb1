package main

import (
	"io"
	"os"

	"aorta-probe/triage"
)

// subcommand runs the commands that read documents instead of capturing
// one: `validate` (docs/schema.md), `diff` and `env-names`
// (docs/triage.md). ok is false for every other command line, which is a
// capture. A capture written to a file named like a subcommand needs a
// path: ./diff.
func subcommand(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "validate":
		return runValidate(args[1:], os.Stdin, stdout, stderr), true // validate_cmd.go
	case "diff":
		return triage.Main(args[1:], triage.NewIO(os.Stdin, stdout, stderr)), true
	case "env-names":
		return triage.EnvNamesMain(args[1:], os.Environ(), triage.NewIO(os.Stdin, stdout, stderr)), true
	}
	return 0, false
}
