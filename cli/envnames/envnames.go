// Package envnames is `aorta-probe env-names [OUT|-]`: the names (never
// the values) of this process's environment variables, for
// `aorta-probe diff --env-markers` (docs/triage.md).
package envnames

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
	"aorta-probe/internal/machine"
	"aorta-probe/triage"
)

// Run is `aorta-probe env-names [OUT|-]`, stopped promptly by a signal
// (cli.Interruptible); the names are written as the capture writes its
// document.
func Run(args []string, p cli.Process) int {
	return cli.Interruptible("env-names", p.Signals, p.Stderr, func(w *cli.Watch) int {
		return names(args, os.Environ(), p.Stdout, p.Stderr, writer(w, p.Stdout))
	})
}

const usage = `Usage: aorta-probe env-names [OUT|-]

Write the NAMES of every environment variable of this process (sorted, as
JSON), never their values, except the placement markers BUCK_BUILD_ID and
BUCK_SCRATCH_PATH. OUT is written atomically; without OUT, or with -, to
standard output. Run it inside a Buck2 action locally and remote, then
compare with 'aorta-probe diff --env-markers A B' (docs/buck2.md).
`

// names is env-names over environ: exit 0 written (by write), 1 not
// writable, 2 usage error.
func names(args, environ []string, stdout, stderr io.Writer, write func(out string, b []byte) error) int {
	out := "-"
	var pos []string
	for _, a := range args {
		switch {
		case a == "-h" || a == "--help":
			return output.Help(stdout, stderr, "aorta-probe env-names", usage, 1)
		case a != "-" && strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "aorta-probe env-names: %v\nTry 'aorta-probe env-names --help' for help.\n", cli.UnknownFlag(a, []string{"-h", "--help"}))
			return 2
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "aorta-probe env-names: at most one output, got %d\nTry 'aorta-probe env-names --help' for help.\n", len(pos))
		return 2
	}
	if len(pos) == 1 {
		out = pos[0]
	}
	b, err := json.MarshalIndent(triage.CollectEnvNames(environ), "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "aorta-probe env-names: %v\n", err)
		return 1
	}
	b = append(b, '\n')
	switch err := write(out, b); {
	case err != nil && out == "-":
		return output.FailedStdout(stderr, "aorta-probe env-names", err, 1)
	case err != nil:
		fmt.Fprintf(stderr, "aorta-probe env-names: failed to write %s: %v\n", out, err)
		return 1
	}
	return 0
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
		by := output.WriteBy(start, machine.DefaultDeadline)
		if out == "-" {
			return output.WriteStdout(ctx, by, stdout, b)
		}
		return output.WriteOutput(ctx, by, out, b)
	}
}
