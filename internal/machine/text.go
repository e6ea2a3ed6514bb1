package machine

import (
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
)

// MaxTextFile bounds read-text: version files, headers and sysfs attributes
// are bytes to kilobytes, and a multi-gigabyte "version" file must not be
// read into memory. A larger file reads as unreadable.
const MaxTextFile = 4 << 20

// ReadText is read-text (docs/rocm-libraries.md#read-text): the whole
// file as strict UTF-8 with universal newlines, Python-stripped; nil when
// missing, unreadable, not UTF-8, or empty after stripping.
func (r *FS) ReadText(p string) *string {
	b, err := r.ReadFile(p, MaxTextFile)
	if err != nil || !utf8.Valid(b) {
		return nil
	}
	s := pyfmt.Strip(pyfmt.UniversalNewlines(string(b)))
	if s == "" {
		return nil
	}
	return &s
}

// MarkerLimit is how much of a version marker is read.
const MarkerLimit = 4096

// ReadMarker is the bounded marker read of .info/version and
// .info/version-dev (docs/rocm-roots.md#version-markers): at most 4096
// bytes; strict UTF-8, except that a multibyte sequence the limit cut short
// is dropped (an incomplete one at the real end, or any other invalid byte,
// is nil); no newline translation; Python-stripped; nil when empty, missing
// or unreadable (a directory, a FIFO, a loop).
func (r *FS) ReadMarker(p string) *string {
	b, err := r.ReadHead(p, MarkerLimit+1)
	if err != nil {
		return nil
	}
	return MarkerText(b)
}

// MarkerText is readMarker's decoding of the (at most 4097) bytes read.
func MarkerText(b []byte) *string {
	cut := len(b) > MarkerLimit
	if cut {
		b = b[:MarkerLimit]
	}
	if !utf8.Valid(b) {
		n, ok := cutSequence(b)
		if !cut || !ok {
			return nil
		}
		b = b[:len(b)-n]
	}
	s := pyfmt.Strip(string(b))
	if s == "" {
		return nil
	}
	return &s
}

// cutSequence reports whether b is valid UTF-8 but for one multibyte
// sequence at its end that stops early (a lead byte followed by fewer
// continuation bytes than it announces, each of them allowed there), and
// that sequence's length.
func cutSequence(b []byte) (int, bool) {
	for i := 1; i <= 3 && i <= len(b); i++ {
		tail := b[len(b)-i:]
		if utf8.RuneStart(tail[0]) && !utf8.FullRune(tail) && utf8.Valid(b[:len(b)-i]) {
			return i, true
		}
	}
	return 0, false
}
