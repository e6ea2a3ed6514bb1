package probe

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"aorta-probe/schema"
)

// collectBuildSystem is build_system (context.md §19): the Buck2 checkout
// the probe runs in. It never appends a reason.
//
// Source: buck2 --version and buck2 root (cwd: the probe's working
// directory), then hg id -i, else git rev-parse HEAD (cwd: the repo root).
func collectBuildSystem(s *state) schema.BuildSystem {
	none := schema.BuildSystem{Kind: "none"}
	buck2, ok := s.which("buck2")
	if !ok {
		return none
	}
	// Both run, version first, even when the first fails (§26 item 22).
	// Output that is not UTF-8 is Python's UnicodeDecodeError: it escapes
	// _run_capture at once and the caller's catch-all gives kind none
	// (§26 item 21), so nothing after it runs.
	version, err := s.capture([]string{buck2, "--version"}, s.opt.Cwd)
	if errors.As(err, new(*decodeError)) {
		return none
	}
	root, err := s.capture([]string{buck2, "root"}, s.opt.Cwd)
	if errors.As(err, new(*decodeError)) {
		return none
	}
	if version == nil || root == nil {
		return none
	}
	b := &schema.Buck2{Version: *version, RepoRoot: *root}
	if _, ok := s.which("hg"); ok {
		rev, err := s.capture([]string{"hg", "id", "-i"}, *root)
		if errors.As(err, new(*decodeError)) {
			return none
		}
		b.Revision = rev
	}
	if b.Revision == nil {
		if _, ok := s.which("git"); ok {
			rev, err := s.capture([]string{"git", "rev-parse", "HEAD"}, *root)
			if errors.As(err, new(*decodeError)) {
				return none
			}
			b.Revision = rev
		}
	}
	return schema.BuildSystem{Kind: "buck2", Buck2: b}
}

// capture is the spec's _run_capture: run argv in dir with the short
// timeout and return stdout stripped, or nil on a start error, timeout,
// non-zero exit or empty output. Output that is not UTF-8 is a
// *decodeError, as Python's text=True decoding raises.
func (s *state) capture(argv []string, dir string) (*string, error) {
	r := s.run(Command{Argv: argv, Dir: dir, Timeout: ShortTimeout})
	if r.Err != nil {
		return nil, r.Err
	}
	stdout, stderr, err := decodeText(r)
	if err != nil {
		return nil, err
	}
	_ = stderr
	out := pyStrip(stdout)
	if out == "" {
		return nil, nil
	}
	return &out, nil
}

// decodeText is subprocess.run(text=True): stdout then stderr decoded as
// strict UTF-8, universal newlines.
func decodeText(r Result) (stdout, stderr string, err error) {
	for i, b := range [][]byte{r.Stdout, r.Stderr} {
		if err := utf8Check(b); err != nil {
			return "", "", err
		}
		if i == 0 {
			stdout = universalNewlines(string(b))
		} else {
			stderr = universalNewlines(string(b))
		}
	}
	return stdout, stderr, nil
}

// decodeError is Python's UnicodeDecodeError for the utf-8 codec.
type decodeError struct {
	b      byte
	pos    int
	end    int // exclusive end of the bad sequence
	reason string
}

func (e *decodeError) Error() string {
	if e.end-e.pos > 1 {
		return fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", e.pos, e.end-1, e.reason)
	}
	return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", e.b, e.pos, e.reason)
}

// utf8Check finds the first invalid sequence the way CPython's decoder
// words it: "invalid start byte", "invalid continuation byte", or
// "unexpected end of data" for a sequence cut at the end.
func utf8Check(b []byte) error {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			i += n
			continue
		}
		c := b[i]
		need := 0
		switch {
		case c >= 0xc2 && c <= 0xdf:
			need = 1
		case c >= 0xe0 && c <= 0xef:
			need = 2
		case c >= 0xf0 && c <= 0xf4:
			need = 3
		default:
			return &decodeError{b: c, pos: i, end: i + 1, reason: "invalid start byte"}
		}
		// Count the valid continuation bytes that follow.
		j := i + 1
		for ; j < len(b) && j <= i+need; j++ {
			lo, hi := byte(0x80), byte(0xbf)
			if j == i+1 {
				switch c {
				case 0xe0:
					lo = 0xa0
				case 0xed:
					hi = 0x9f
				case 0xf0:
					lo = 0x90
				case 0xf4:
					hi = 0x8f
				}
			}
			if b[j] < lo || b[j] > hi {
				return &decodeError{b: c, pos: i, end: j, reason: "invalid continuation byte"}
			}
		}
		return &decodeError{b: c, pos: i, end: j, reason: "unexpected end of data"}
	}
	return nil
}
