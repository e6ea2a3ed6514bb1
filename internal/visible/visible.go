// Package visible is the one home of how text from a document or a machine
// (a sysfs string, a file name, a value) is shown to people: on a
// terminal, in a report, in a log line. A string read from the machine
// can hold bytes a terminal acts on (ESC starts an escape sequence that
// sets the window title or clears the screen, U+009B is the C1 CSI, BEL
// rings, CR and LF move the cursor, U+202E reverses the text that
// follows); shown raw, it rewrites the terminal or forges lines. Every
// human-readable output of aorta-probe (the brief, diff's text and
// Markdown, fleet reports, stderr, Prometheus label values) passes its
// text through Escape or Quote, so that such a character is seen, never
// obeyed, and every value stays on its line (docs/usage.md, "Control and
// bidi characters"). The JSON document keeps the exact bytes.
package visible

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Shown reports whether r is shown as itself: a printable character
// (strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the
// ASCII space). Everything else is escaped: the C0 and C1 controls, DEL,
// format characters (the bidi embeddings, overrides and isolates
// U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F and U+061C,
// zero-width characters), line and paragraph separators, spaces other
// than U+0020, private-use and unassigned code points.
func Shown(r rune) bool { return strconv.IsPrint(r) }

// Clean reports whether s is shown as is: valid UTF-8 of characters
// that Shown accepts.
func Clean(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !Shown(r) {
			return false
		}
		i += n
	}
	return true
}

// Escape is s with every character Shown rejects written as Go writes it
// in a string literal (strconv.Quote): \a \b \f \n \r \t \v, \xNN for
// the other bytes below 0x80 and for each byte that is not UTF-8,
// \uXXXX, or \UXXXXXXXX above U+FFFF. A backslash and quotes are kept as
// they are, so the result reads as the text; Quote is the reversible
// form. The result is one line whatever s holds.
func Escape(s string) string {
	if Clean(s) {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)+16), s, ""))
}

// Quote is s as a Go string literal (strconv.Quote): in double quotes,
// with \" and \\ besides Escape's escapes, so that strconv.Unquote (or a
// reader) recovers the exact bytes.
func Quote(s string) string { return strconv.Quote(s) }

// appendEscaped appends s to b escaped as Escape says, keeping the bytes
// of keep (only ASCII ones) as they are.
func appendEscaped(b []byte, s string, keep string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f || strings.IndexByte(keep, c) >= 0 {
				b = append(b, c)
			} else {
				b = appendRune(b, rune(c))
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
		case Shown(r):
			b = append(b, s[i:i+n]...)
		default:
			b = appendRune(b, r)
		}
		i += n
	}
	return b
}

// appendRune appends the escape strconv.QuoteRune writes for r, without
// its quotes.
func appendRune(b []byte, r rune) []byte {
	q := strconv.AppendQuoteRuneToASCII(nil, r)
	return append(b, q[1:len(q)-1]...)
}

// Writer returns a writer that writes to w what it is given with every
// character Shown rejects escaped, except the line feed that ends a
// message (stderr: docs/usage.md). Each Write is escaped on its own, so a
// UTF-8 sequence split across two writes shows as \xNN escapes.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (e writer) Write(p []byte) (int, error) {
	s := string(p)
	if Clean(strings.ReplaceAll(s, "\n", "")) {
		return e.w.Write(p)
	}
	if _, err := e.w.Write(appendEscaped(nil, s, "\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}
