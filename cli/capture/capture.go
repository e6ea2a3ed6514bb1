package capture

import (
	"fmt"
	"os"
	"path/filepath"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
	"aorta-probe/internal/archive"
)

const captureUsage = `Usage: aorta-probe capture ARCHIVE [--redact-hostname] [OUT|-] [flags]

Run one collection, as aorta-probe [OUT|-] [flags] does, and record
everything it read and ran into ARCHIVE, a fake-root archive that
aorta-probe --root ARCHIVE replays on any machine. --redact-hostname
replaces the hostname and the boot id in the archive. What an archive
holds: docs/capture.md.
`

// Record is `aorta-probe capture ARCHIVE [--redact-hostname] [usual
// arguments]` (docs/capture.md): the usual run with a Recorder, both
// destinations checked first, then the archive staged and put in place
// once the document is written (runWith).
func Record(args []string, p cli.Process) int {
	stdout, stderr := p.Stdout, p.Stderr
	cfg, err := parseCaptureArgs(args)
	switch {
	case err != nil:
	case cfg.help:
		return output.Help(stdout, stderr, cfg.cmd, captureUsage, 1)
	// The document must never replace the archive it is recorded with
	// (aorta-probe capture node.cap node.cap): the same path, another
	// name of the same file, or a link that would create it.
	case cfg.destination() != "-" && samePath(cfg.destination(), cfg.archive):
		out := cfg.destination()
		how := "is the ARCHIVE itself"
		if _, err := os.Stat(out); err != nil && isLink(out) {
			// A dangling link, which a write follows.
			how = "is a link to the ARCHIVE " + cfg.archive + " (writing it would create the archive)"
		} else if _, err := os.Stat(cfg.archive); err != nil && isLink(cfg.archive) {
			how = "is where the ARCHIVE " + cfg.archive + " links to (writing the archive would create it)"
		}
		err = fmt.Errorf("OUT %s %s; give the document another path", out, how)
	}
	if err != nil {
		return usageError(stderr, cfg.cmd, err)
	}
	return runWith(p.Signals, cfg, stdout, stderr, &recording{rec: archive.NewRecorder(cfg.redact), archive: cfg.archive})
}

// stage writes what rc recorded beside ARCHIVE (output.Stage): it goes
// in place once the document is written.
func (rc *recording) stage() (*output.Staged, error) {
	header := fmt.Sprintf("aorta-probe %s capture (docs/capture.md): what one collection read and ran.\n", cli.Version())
	s, err := output.Stage(rc.archive, rc.rec.Archive(header))
	if err != nil {
		return nil, fmt.Errorf("failed to write %s: %s", rc.archive, err)
	}
	return s, nil
}

// samePath reports whether a and b name one file to a writer: the same
// file once links (dangling ones included: writing through one creates
// its target) and directories are resolved (output.Destination), or the
// same device and inode (a hard link, a bind mount) when both exist.
func samePath(a, b string) bool {
	da, errA := output.Destination(a)
	db, errB := output.Destination(b)
	if errA == nil && errB == nil && da != "" && da == db {
		return true
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}
