// Command aorta-probe captures the environment a GPU workload runs in and
// writes it as one env.json document, schema 1.16 of the aorta probe.
//
//	aorta-probe [OUT|-] [flags]
//	aorta-probe validate FILE...
//	aorta-probe diff [--fleet|--env-markers] A B...
//	aorta-probe env-names [OUT|-]
//	aorta-probe capture ARCHIVE [--redact-hostname] [OUT|-] [flags]
//	aorta-probe metrics [DOC|-] [OUT] [flags]
//	aorta-probe labels [DOC|-] [OUT] [flags]
//
// See docs/usage.md. This package only wires: the table of commands,
// dispatch, exit; each command lives in its package under cli.
package main

import (
	"fmt"
	"io"
	"os"

	"aorta-probe/cli"
	"aorta-probe/cli/capture"
	"aorta-probe/cli/diff"
	"aorta-probe/cli/envnames"
	"aorta-probe/cli/help"
	"aorta-probe/cli/labels"
	"aorta-probe/cli/limits"
	"aorta-probe/cli/metrics"
	"aorta-probe/cli/output"
	"aorta-probe/cli/validate"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/signals" // first: installs the signal handler (see the package)
	"aorta-probe/internal/visible"
	"aorta-probe/probe"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == probe.DetachedGPUsArg {
		os.Exit(probe.DetachedGPUs(os.Args[2:])) // a collection's GPU reader
	}
	// The gpus block is read by a child the collection can abandon, and
	// no child holds a descriptor the caller leaked to the probe
	// (docs/hardware.md, "A read that never returns").
	machine.KeepInherited()
	probe.ReadGPUsDetached("/proc/self/exe")
	limits.Start()
	stdout := io.Writer(os.Stdout)
	if output.StdoutClosedAtStart() {
		stdout = output.ClosedStdout{}
	}
	// A tool's descendant that leaves its process group (setsid) is
	// re-parented here when its parent exits, and killed and reaped after
	// each command and before exit (internal/machine/reap.go, docs/usage.md). Where
	// prctl is refused, group kills remain the only cleanup.
	_ = machine.BecomeSubreaper()
	code := run(signals.Received(), os.Args[1:], stdout, os.Stderr)
	machine.ReapOrphans()
	os.Exit(code)
}

// run is the whole program behind main: the command args name, run with
// the rest of args. It returns the exit status. sigs delivers SIGTERM,
// SIGINT and SIGHUP (nil: none). Every message to stderr shows a control
// or bidi character (of a file name, a value) escaped
// (internal/visible, docs/usage.md).
func run(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
	c, rest := command(args)
	return c.Run(rest, cli.Process{Signals: sigs, Stdin: os.Stdin, Stdout: stdout, Stderr: visible.Writer(stderr)})
}

// plain is the capture without a subcommand: aorta-probe [OUT|-] [flags].
var plain = cli.Command{Run: capture.Main} // docs/usage.md

// commands is every command that is not a plain capture, in the order of
// the usage text (capture.Usage lists each one with its purpose and its
// doc: TestUsageNamesSubcommands). A capture written to a file named like
// a subcommand needs a path: ./diff.
func commands() []cli.Command {
	cs := []cli.Command{
		{Name: "validate", Run: validate.Run},  // docs/schema.md
		{Name: "diff", Run: diff.Run},          // docs/triage.md
		{Name: "env-names", Run: envnames.Run}, // docs/triage.md
		{Name: "capture", Run: capture.Record}, // docs/capture.md
		{Name: "metrics", Run: metrics.Run},    // docs/fleet.md
		{Name: "labels", Run: labels.Run},      // docs/fleet.md
	}
	return append(cs, help.Command(cs, plain)) // docs/usage.md
}

// command is the command args[0] names, with the arguments after the
// name; a bare word that resembles a name (valdate, dif) is a usage
// error (mistyped); every other command line is a plain capture of all of
// args.
func command(args []string) (cli.Command, []string) {
	if len(args) == 0 {
		return plain, args
	}
	cs := commands()
	names := make([]string, len(cs))
	for i, c := range cs {
		if c.Name == args[0] {
			return c, args[1:]
		}
		names[i] = c.Name
	}
	if name, ok := cli.Resembles(args[0], names); ok {
		return mistyped(args[0], name), nil
	}
	return plain, args
}

// mistyped is the usage error of a first argument that resembles the
// subcommand name but is none (docs/usage.md): a capture would write the
// document to a file of that name, which the user did not mean; ./WORD
// writes it there.
func mistyped(word, name string) cli.Command {
	return cli.Command{Run: func(_ []string, p cli.Process) int {
		fmt.Fprintf(p.Stderr, "aorta-probe: %s is not a subcommand; did you mean %s? (to write the document to a file named %s, give it as ./%s)\n",
			pyfmt.Repr(cli.Clip(word)), name, cli.Clip(word), cli.Clip(word))
		fmt.Fprintln(p.Stderr, "Try 'aorta-probe --help' for help.")
		return 2
	}}
}
