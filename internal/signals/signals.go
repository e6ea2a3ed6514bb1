// Package signals installs the probe's handler for the signals that end a
// capture early (SIGTERM, SIGINT, SIGHUP) and for SIGPIPE, as early as a Go
// program can: in the init of a package that imports nothing but os/signal
// and syscall. Package initialisation runs in dependency order and, among
// ready packages, in import-path order, so this init runs right after
// os/signal's, before the probe's own packages build their tables. Until
// then the Go runtime's default action applies (the process dies without a
// document); docs/usage.md gives the measured window.
//
// The signals are process-wide, so the channel they arrive on is too: it is
// the only package-level state of the program, created once here.
package signals

import (
	"os"
	"os/signal"
	"syscall"
)

// ending are the signals that end a capture early: the document is still
// written (docs/usage.md, "Deadline and signals"). SIGHUP is an ssh
// session or terminal going away.
var ending = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

// received buffers the ending signals from the start of the process until
// main reads them; one is enough to cancel, more are dropped by os/signal.
var received = make(chan os.Signal, 4)

func init() {
	// One the probe was started ignoring stays ignored: nohup ignores
	// SIGHUP, a shell starts background jobs ignoring SIGINT; handling it
	// would undo that.
	for _, sig := range ending {
		if !signal.Ignored(sig) {
			signal.Notify(received, sig)
		}
	}
	// With SIGPIPE handled, a write to a closed pipe on stdout returns
	// EPIPE (reported, exit 1) instead of killing the probe silently;
	// a caught signal is reset to its default in the tools it runs.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// Received returns the channel on which the ending signals arrive, including
// those received before main started.
func Received() <-chan os.Signal { return received }
