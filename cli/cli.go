// Package cli is what every subcommand of aorta-probe shares: the one
// shape of a command (Command, run with its arguments and the Process it
// talks to), the signals that interrupt a command (Watch, Interruptible),
// and the binary's version. Package main holds the table of commands and
// dispatches; each command lives in its own package below this one
// (capture, validate, diff, envnames, metrics, labels, help), with the brief and the
// output writers beside them (docs/design-notes.md, "Layout and data
// flow").
package cli

import (
	"io"
	"os"
)

// Command is one command of aorta-probe: the first argument that names
// it, and what runs it with the arguments after that name. Run returns
// the exit status.
type Command struct {
	Name string
	Run  func(args []string, p Process) int
}

// Process is what a command talks to: the standard streams and the
// ending signals.
type Process struct {
	// Signals delivers SIGTERM, SIGINT and SIGHUP (nil: none): the first
	// ends a collection early or interrupts a command; one received while
	// an output waits for its reader abandons the write.
	Signals        <-chan os.Signal
	Stdin          *os.File // nil: no standard input
	Stdout, Stderr io.Writer
}
