package main

import (
	"os"

	"aorta-probe/triage"
)

// subcommand runs the triage subcommands before any capture flag is
// parsed: `diff` and `env-names` (docs/triage.md). ok is false for every
// other command line, which is a capture. A capture written to a file
// named "diff" needs a path: ./diff.
func subcommand(args []string) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "diff":
		return triage.Main(args[1:], triage.StdIO()), true
	case "env-names":
		return triage.EnvNamesMain(args[1:], os.Environ(), triage.StdIO()), true
	}
	return 0, false
}
