package probe

import (
	"errors"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// collectBuildSystem is build_system (docs/buck2.md#3-the-buck-blocks): the
// Buck2 checkout the probe runs in. It never appends a reason.
//
// Source: buck2 --version and buck2 root (cwd: the probe's working
// directory), then hg id -i, else git rev-parse HEAD (cwd: the repo root).
func collectBuildSystem(s *state) schema.BuildSystem {
	none := schema.BuildSystem{Kind: "none"}
	buck2, ok := s.which("buck2")
	if !ok {
		return none
	}
	// Both run, version first, even when the first fails (as the Python
	// probe). Output that is not UTF-8 is Python's UnicodeDecodeError: it
	// escapes the Python probe's command helper (state.capture below) at
	// once and the caller's catch-all gives kind none, so nothing after it
	// runs.
	version, err := s.capture([]string{buck2, "--version"}, s.opt.Cwd)
	if errors.As(err, new(*pyfmt.UnicodeDecodeError)) {
		return none
	}
	root, err := s.capture([]string{buck2, "root"}, s.opt.Cwd)
	if errors.As(err, new(*pyfmt.UnicodeDecodeError)) {
		return none
	}
	if version == nil || root == nil {
		return none
	}
	b := &schema.Buck2{Version: *version, RepoRoot: *root}
	if _, ok := s.which("hg"); ok {
		rev, err := s.capture([]string{"hg", "id", "-i"}, *root)
		if errors.As(err, new(*pyfmt.UnicodeDecodeError)) {
			return none
		}
		b.Revision = rev
	}
	if b.Revision == nil {
		if _, ok := s.which("git"); ok {
			rev, err := s.capture([]string{"git", "rev-parse", "HEAD"}, *root)
			if errors.As(err, new(*pyfmt.UnicodeDecodeError)) {
				return none
			}
			b.Revision = rev
		}
	}
	return schema.BuildSystem{Kind: "buck2", Buck2: b}
}

// capture is the Python probe's helper for build_system's commands
// (docs/buck2.md): run argv in dir with the short
// timeout and return stdout stripped, or nil on a start error, timeout,
// non-zero exit or empty output. Output that is not UTF-8 is a
// *pyfmt.UnicodeDecodeError, as Python's text=True decoding raises.
func (s *state) capture(argv []string, dir string) (*string, error) {
	r := s.run(machine.Command{Argv: argv, Dir: dir, Timeout: machine.ShortTimeout})
	if r.Err != nil {
		return nil, r.Err
	}
	stdout, stderr, err := decodeText(r)
	if err != nil {
		return nil, err
	}
	_ = stderr
	out := pyfmt.Strip(stdout)
	if out == "" {
		return nil, nil
	}
	return &out, nil
}

// decodeText is subprocess.run(text=True): stdout then stderr decoded as
// strict UTF-8, universal newlines.
func decodeText(r machine.Result) (stdout, stderr string, err error) {
	for i, b := range [][]byte{r.Stdout, r.Stderr} {
		if de := pyfmt.DecodeUTF8(b); de != nil {
			return "", "", de
		}
		if i == 0 {
			stdout = pyfmt.UniversalNewlines(string(b))
		} else {
			stderr = pyfmt.UniversalNewlines(string(b))
		}
	}
	return stdout, stderr, nil
}
