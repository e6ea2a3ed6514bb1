// Command aorta-probe captures the environment a GPU workload runs in and
// writes it as one env.json document, schema 1.16 of the aorta probe.
//
//	aorta-probe [OUT|-] [flags]
//	aorta-probe validate FILE...
//	aorta-probe diff [--fleet|--env-markers] A B...
//	aorta-probe env-names [OUT|-]
//	aorta-probe capture ARCHIVE [--redact-hostname] [OUT|-] [flags]
//
// See docs/usage.md.
package main

import (
	"io"
	"os"

	"aorta-probe/internal/cli/capture"
	"aorta-probe/internal/cli/output"
	"aorta-probe/internal/signals" // first: installs the signal handler (see the package)
	"aorta-probe/probe"
)

func main() {
	stdout := io.Writer(os.Stdout)
	if output.StdoutClosedAtStart() {
		stdout = output.ClosedStdout{}
	}
	// A tool's descendant that leaves its process group (setsid) is
	// re-parented here when its parent exits, and killed and reaped after
	// each command and before exit (probe/reap.go, docs/usage.md). Where
	// prctl is refused, group kills remain the only cleanup.
	_ = probe.BecomeSubreaper()
	code := run(signals.Received(), os.Args[1:], stdout, os.Stderr)
	probe.ReapOrphans()
	os.Exit(code)
}

// run is the whole program behind main: a subcommand (diff_cmd.go) or the
// capture (internal/cli/capture). It returns the exit status. sigs
// delivers SIGTERM, SIGINT and SIGHUP (nil: none).
func run(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
	if code, ok := subcommand(sigs, args, stdout, stderr); ok { // diff_cmd.go
		return code
	}
	return capture.Main(sigs, args, stdout, stderr)
}
