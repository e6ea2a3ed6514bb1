package pyfmt

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lower is str.lower() as the probe's suffix tests use it: the simple
// Unicode lower case of each code point, bytes that are not UTF-8 kept as
// they are (Go's strings.ToLower would turn them into U+FFFD).
func Lower(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteByte(s[i])
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		i += n
	}
	return b.String()
}

// Sort sorts strings as Python sorts str: by code point, with every byte
// that is not UTF-8 standing for the surrogate U+DC00+byte (the
// surrogateescape decoding of os.listdir). For valid UTF-8 this is byte
// order.
func Sort(ss []string) { sort.SliceStable(ss, func(i, j int) bool { return Less(ss[i], ss[j]) }) }

// Less is a < b in Python's code point order (see Sort).
func Less(a, b string) bool {
	if utf8.ValidString(a) && utf8.ValidString(b) {
		return a < b
	}
	for a != "" && b != "" {
		ra, na := surrogateRune(a)
		rb, nb := surrogateRune(b)
		if ra != rb {
			return ra < rb
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

func surrogateRune(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 {
		return 0xdc00 + rune(s[0]), 1
	}
	return r, n
}
