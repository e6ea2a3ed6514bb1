package pyfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The regex classes of Python's str patterns, for RE2, whose \s is ASCII
// only and lacks \v and U+001C..U+001F, and whose \d is ASCII only.
// spaceClass is the body of the class IsSpace accepts
// (TestReSpaceIsIsSpace checks every code point).
const spaceClass = `\t\n\v\f\r \x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

const (
	// ReSpace is Python's \s.
	ReSpace = `[` + spaceClass + `]`
	// ReNotSpace is Python's \S.
	ReNotSpace = `[^` + spaceClass + `]`
	// ReNotSpaceOrComma is Python's [^\s,].
	ReNotSpaceOrComma = `[^` + spaceClass + `,]`
	// ReDigit is Python's \d: any Unicode decimal digit.
	ReDigit = `\p{Nd}`
)

// UniversalNewlines turns CRLF and lone CR into LF, as Python's text mode
// (open() and subprocess text=True) reads line ends.
func UniversalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// Splitlines is Python's str.splitlines(): it breaks on \n, \r\n, \r, \v,
// \f, \x1c-\x1e, \x85, U+2028 and U+2029, and drops the final empty line.
func Splitlines(s string) []string {
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

// Fields is Python's str.split() with no argument: runs of IsSpace
// separate, none at either end.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// IsWord is Python's \w for str patterns: letters, digits (every numeric
// category: Nd, Nl, No) and underscore.
func IsWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Nl, unicode.No)
}

// IsWordAt reports whether s[k:] starts with a \w character, so that a \b
// after a word character at k-1 does not hold. False at the end of s.
func IsWordAt(s string, k int) bool {
	if k >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[k:])
	return IsWord(r)
}

// IsASCIIWord is \w under re.ASCII, [A-Za-z0-9_]: a byte of a C
// identifier.
func IsASCIIWord(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
