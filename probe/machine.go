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
	// Uname is the part of uname(2) the document records.
	Uname = machine.Uname
	// NamespaceAnswer is what the kernel said for one namespace type:
	// the id and the ioctl that gave it, or why there is none (Reason,
	// the wording of probe_provenance.identity.namespaces[].reason).
	NamespaceAnswer = machine.NamespaceAnswer
	// Recorder records one collection (Options.Record; docs/capture.md).
	Recorder = machine.Recorder
	// Replay answers a collection from a capture archive
	// (Options.Replay; docs/capture.md).
	Replay = machine.Replay
	// NotCapturedError is a replayed command the archive holds no
	// answer for.
	NotCapturedError = machine.NotCapturedError
)

// Capture and replay (internal/machine, docs/capture.md).
var (
	NewRecorder   = machine.NewRecorder
	LoadReplay    = machine.LoadReplay
	IsArchive     = machine.IsArchive
	IsCapture     = machine.IsCapture
	ErrNotArchive = machine.ErrNotArchive
)

// ErrTimeout is the Err of a command killed at its timeout.
var ErrTimeout = machine.ErrTimeout

// Per-command timeouts (machine.ShortTimeout, machine.LongTimeout).
const (
	ShortTimeout = machine.ShortTimeout
	LongTimeout  = machine.LongTimeout
)

// rootFS is the probed machine's filesystem under Options.Root
// (machine.FS): every file a collector reads goes through it.
type rootFS = machine.FS
