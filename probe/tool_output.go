package probe

import (
	"errors"
	"io/fs"
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
)

// Helpers shared by the command-driven hardware blocks (system_health, hip,
// gpu_arch, nics): how a command's output becomes text, and how its failure
// becomes the detail of a reason (docs/hardware.md,
// docs/design-notes.md#python-text-fidelity).

// stderrTailRunes is the [:200] truncation of stderr tails, in code points.
const stderrTailRunes = 200

// toolText decodes a command's output. Python decodes strictly and would
// crash into the disaster snapshot on invalid UTF-8; the port decodes
// leniently, each invalid run becoming U+FFFD (docs/hardware.md).
func toolText(b []byte) string { return strings.ToValidUTF8(string(b), "\ufffd") }

// stderrText is a command's stderr as text. When the cap cut it, its last
// line is a fragment and is dropped, so the tail shown is a whole line from
// the part that was kept (the real last line of a stderr longer than the
// cap is not kept).
func stderrText(r machine.Result) string {
	s := toolText(r.Stderr)
	if r.StderrCut {
		if i := strings.LastIndexAny(s, "\n\r"); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// lastNonBlankLine is the stderr detail of rdhc and nicRun: the last line
// that is non-blank after stripping, stripped, cut to 200 code points; ""
// when there is none.
func lastNonBlankLine(s string) string {
	lines := pyfmt.Splitlines(s)
	for i := len(lines) - 1; i >= 0; i-- {
		if l := pyfmt.Strip(lines[i]); l != "" {
			return pyfmt.FirstRunes(l, stderrTailRunes)
		}
	}
	return ""
}

// lastLineOfStripped is gpu_arch's stderr detail: the whole stderr stripped,
// then its last line as it stands (its leading whitespace kept), cut to 200
// code points; ok is false when the stripped stderr is empty.
func lastLineOfStripped(s string) (string, bool) {
	lines := pyfmt.Splitlines(pyfmt.Strip(s))
	if len(lines) == 0 {
		return "", false
	}
	return pyfmt.FirstRunes(lines[len(lines)-1], stderrTailRunes), true
}

// invokeExc is Python's str(exc) for a command that could not be started:
// "[Errno 2] No such file or directory: 'sudo'". Python's subprocess names
// the program as it was given in argv[0], not the path exec tried, so the
// path of the error is replaced by argv0.
func invokeExc(err error, argv0 string) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pyfmt.ExcStr(&fs.PathError{Op: pe.Op, Path: argv0, Err: pe.Err})
	}
	return pyfmt.ExcStr(err)
}
