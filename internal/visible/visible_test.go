package visible

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestEscape: the characters of issue 32's hostile sysfs strings, and the
// ones a terminal or a bidi renderer acts on, come out as escapes; text
// without them is unchanged (the same string, no copy).
func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"113-M3080202-100", "113-M3080202-100"},
		{"8 × gfx942 (AMD Instinct MI308X) …", "8 × gfx942 (AMD Instinct MI308X) …"},
		{`C:\path "q"`, `C:\path "q"`},
		{"\x1b]0;owned\x07", `\x1b]0;owned\a`},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"v1\r\n  rocm:      FORGED", `v1\r\n  rocm:      FORGED`},
		{"\u009b31m", `\u009b31m`},
		{"abc\u202edef", `abc\u202edef`},
		{"\u2066x\u2069\u200e\u200f\u061c", `\u2066x\u2069\u200e\u200f\u061c`},
		{"a\u2028b\u2029c\u0085d", `a\u2028b\u2029c\u0085d`},
		{"\t\x00\x7f", `\t\x00\x7f`},
		{"nb\u00a0sp", `nb\u00a0sp`},
		{"bad\x9b\xffutf8", `bad\x9b\xffutf8`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"", ""},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if Clean(c.in) != (c.in == c.want) {
			t.Errorf("Clean(%q) = %v", c.in, Clean(c.in))
		}
		if u, err := strconv.Unquote(Quote(c.in)); err != nil || u != c.in {
			t.Errorf("Quote(%q) = %s does not read back (%q, %v)", c.in, Quote(c.in), u, err)
		}
	}
}

// TestWriter: stderr keeps its line ends and escapes the rest; the count
// returned is of the bytes given.
func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	msg := "aorta-probe diff: a\x1b]0;x\x07.json: \u202eno such file\n"
	n, err := w.Write([]byte(msg))
	if err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	if want := "aorta-probe diff: a\\x1b]0;x\\a.json: \\u202eno such file\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// FuzzEscape: whatever s holds, Escape gives one line of valid UTF-8 with
// no character Shown rejects, equal to s when s is Clean, and Quote
// reads back to s.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;t\x07", "\u009b\u202e", "\xff\xfe", "a\nb\r\n", "\U000e0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) || strings.ContainsAny(e, "\n\r") || !Clean(e) {
			t.Fatalf("Escape(%q) = %q is not clean", s, e)
		}
		if Clean(s) && e != s {
			t.Fatalf("Escape(%q) = %q changed a clean string", s, e)
		}
		if Escape(e) != e {
			t.Fatalf("Escape is not idempotent on %q", s)
		}
		if u, err := strconv.Unquote(Quote(s)); err != nil || u != s {
			t.Fatalf("Quote(%q) = %s reads back %q, %v", s, Quote(s), u, err)
		}
	})
}
