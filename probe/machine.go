package probe

import "aorta-probe/internal/machine"

// The command runner lives in internal/machine, beside the filesystem
// under a root; probe names its types as its own so that collectors, tests
// and callers write probe.Command and probe.Result
// (docs/design-notes.md, "Layout and data flow").
type (
	// Command is one external program to run (machine.Command).
	Command = machine.Command
	// Result is what a command did (machine.Result).
	Result = machine.Result
	// Runner runs commands; ExecRunner is the real one.
	Runner = machine.Runner
	// ExecRunner runs commands as real processes (machine.ExecRunner).
	ExecRunner = machine.ExecRunner
	// ExitError is a command's non-zero exit status.
	ExitError = machine.ExitError
)

// ErrTimeout is the Err of a command killed at its timeout.
var ErrTimeout = machine.ErrTimeout

// Per-command timeouts and output caps (machine.ShortTimeout, …).
const (
	ShortTimeout     = machine.ShortTimeout
	LongTimeout      = machine.LongTimeout
	DefaultMaxOutput = machine.DefaultMaxOutput
	DefaultMaxStderr = machine.DefaultMaxStderr
)

// BecomeSubreaper and ReapOrphans: machine.BecomeSubreaper and
// machine.ReapOrphans, for package main.
var (
	BecomeSubreaper = machine.BecomeSubreaper
	ReapOrphans     = machine.ReapOrphans
)

// rootFS is the probed machine's filesystem under Options.Root
// (machine.FS): every file a collector reads goes through it.
type rootFS = machine.FS
