package capture

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
	"aorta-probe/internal/machine"
)

const captureUsage = `Usage: aorta-probe capture ARCHIVE [--redact-hostname] [OUT|-] [flags]

Run one collection, as aorta-probe [OUT|-] [flags] does, and record
everything it read and ran into ARCHIVE, a fake-root archive that
aorta-probe --root ARCHIVE replays on any machine. --redact-hostname
replaces the hostname and the boot id in the archive. What an archive
holds: docs/capture.md.
`

// Record is `aorta-probe capture ARCHIVE [--redact-hostname] [usual
// arguments]` (docs/capture.md): the usual run with a Recorder, then the
// archive written.
func Record(args []string, p cli.Process) int {
	sigs, stdout, stderr := p.Signals, p.Stdout, p.Stderr
	var archive string
	redact := false
	var rest []string
	for _, a := range args {
		switch {
		case a == "--help" || a == "-h":
			io.WriteString(stdout, captureUsage)
			return 0
		case a == "--redact-hostname":
			redact = true
		case archive == "" && !strings.HasPrefix(a, "-"):
			archive = a
		default:
			rest = append(rest, a)
		}
	}
	if archive == "" {
		fmt.Fprintln(stderr, "aorta-probe capture: no ARCHIVE given")
		fmt.Fprintln(stderr, "Try 'aorta-probe capture --help' for help.")
		return 2
	}
	// The document must never replace the archive it is recorded with
	// (aorta-probe capture node.cap node.cap): the same path, or another
	// name of the same file.
	if cfg, err := parseArgs(rest); err == nil && cfg.out != "-" && !cfg.summary && cfg.field == nil && samePath(cfg.out, archive) {
		fmt.Fprintf(stderr, "aorta-probe capture: OUT %s is the ARCHIVE itself; give the document another path\n", cfg.out)
		fmt.Fprintln(stderr, "Try 'aorta-probe capture --help' for help.")
		return 2
	}
	rec := machine.NewRecorder(redact)
	return runWith(sigs, rest, stdout, stderr, rec, func() error {
		header := fmt.Sprintf("aorta-probe %s capture (docs/capture.md): what one collection read and ran.\n", cli.Version())
		if err := output.WriteOutput(context.Background(), time.Now().Add(output.MinWriteWait), archive, rec.Archive(header)); err != nil {
			return fmt.Errorf("failed to write %s: %s", archive, err)
		}
		return nil
	})
}

// samePath reports whether a and b name the same file: the same path once
// made absolute and clean, or the same device and inode (a link, a
// bind mount) when both exist.
func samePath(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
