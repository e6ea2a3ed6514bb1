package probe

import (
	"aorta-probe/internal/pyfmt"
	"strings"
	"unicode/utf8"
)

// maxTextFile bounds read-text: version files, headers and sysfs attributes
// are bytes to kilobytes, and a multi-gigabyte "version" file must not be
// read into memory. A larger file reads as unreadable.
const maxTextFile = 4 << 20

// readText is the spec's read-text (core.md §3.1, context.md §0.2): the whole
// file as strict UTF-8 with universal newlines, Python-stripped; nil when
// missing, unreadable, not UTF-8, or empty after stripping.
func (r *rootFS) readText(p string) *string {
	b, err := r.readFile(p, maxTextFile)
	if err != nil || !utf8.Valid(b) {
		return nil
	}
	s := pyStrip(universalNewlines(string(b)))
	if s == "" {
		return nil
	}
	return &s
}

// universalNewlines turns CRLF and lone CR into LF, as Python's text mode.
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// pyStrip is Python's str.strip() with no argument (pyfmt.Strip).
func pyStrip(s string) string { return pyfmt.Strip(s) }

// isPySpace is Python's str.isspace() for one code point (pyfmt.IsSpace).
func isPySpace(r rune) bool { return pyfmt.IsSpace(r) }

// pySplitlines is Python's str.splitlines(): it breaks on \n, \r\n, \r, \v,
// \f, \x1c-\x1e, \x85, U+2028 and U+2029, and drops the final empty line.
func pySplitlines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			i += size
			start = i
			continue
		case '\r':
			out = append(out, s[start:i])
			i += size
			if i < len(s) && s[i] == '\n' {
				i++
			}
			start = i
			continue
		}
		i += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
