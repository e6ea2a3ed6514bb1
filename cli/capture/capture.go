package capture

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
// arguments]` (docs/capture.md): the usual run with a Recorder, both
// destinations checked first, then the archive staged and put in place
// once the document is written (runWith).
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
	// (aorta-probe capture node.cap node.cap): the same path, another
	// name of the same file, or a link that would create it.
	if cfg, err := parseArgs(rest); err == nil && !cfg.help && !cfg.version {
		if out := cfg.destination(); out != "-" && samePath(out, archive) {
			how := "is the ARCHIVE itself"
			if _, err := os.Stat(out); err != nil && isLink(out) {
				// A dangling link, which a write follows.
				how = "is a link to the ARCHIVE " + archive + " (writing it would create the archive)"
			} else if _, err := os.Stat(archive); err != nil && isLink(archive) {
				how = "is where the ARCHIVE " + archive + " links to (writing the archive would create it)"
			}
			fmt.Fprintf(stderr, "aorta-probe capture: OUT %s %s; give the document another path\n", out, how)
			fmt.Fprintln(stderr, "Try 'aorta-probe capture --help' for help.")
			return 2
		}
	}
	return runWith(sigs, rest, stdout, stderr, &recording{rec: machine.NewRecorder(redact), archive: archive})
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
