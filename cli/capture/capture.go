package capture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	stdout, stderr := p.Stdout, p.Stderr
	cfg, err := parseCaptureArgs(args)
	switch {
	case err != nil:
	case cfg.help:
		// Written as every help text is: a failed write is exit 1.
		if err := output.WriteStdout(context.Background(), time.Now().Add(output.MinWriteWait), stdout, []byte(captureUsage)); err != nil {
			fmt.Fprintf(stderr, "aorta-probe capture: failed to write to stdout: %s\n", err)
			return 1
		}
		return 0
	// The document must never replace the archive it is recorded with
	// (aorta-probe capture node.cap node.cap): the same path, or another
	// name of the same file.
	case cfg.out != "-" && !cfg.summary && len(cfg.fields) == 0 && samePath(cfg.out, cfg.archive):
		err = fmt.Errorf("OUT %s is the ARCHIVE itself; give the document another path", cfg.out)
	}
	if err != nil {
		return usageError(stderr, cfg.cmd, err)
	}
	rec := machine.NewRecorder(cfg.redact)
	return runWith(p.Signals, cfg, stdout, stderr, rec, func() error {
		header := fmt.Sprintf("aorta-probe %s capture (docs/capture.md): what one collection read and ran.\n", cli.Version())
		if err := output.WriteOutput(context.Background(), time.Now().Add(output.MinWriteWait), cfg.archive, rec.Archive(header)); err != nil {
			return fmt.Errorf("failed to write %s: %s", cfg.archive, err)
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
