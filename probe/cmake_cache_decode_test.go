package probe

import (
	"testing"
	"unicode/utf8"
)

// decodeReplace matches Python's bytes.decode("utf-8", "replace"): one
// U+FFFD per error CPython reports, so a cut multi-byte prefix is a single
// replacement (expected values from CPython 3.12).
func TestDecodeReplace(t *testing.T) {
	for in, want := range map[string]string{
		"ab":               "ab",
		"a\xffb":           "a\ufffdb",
		"\xe2\x82(":        "\ufffd(",
		"\xe2(":            "\ufffd(",
		"\xed\xa0\x80":     "\ufffd\ufffd\ufffd",
		"\xf0\x9f\x98":     "\ufffd",
		"\xf0\x9f\x98x":    "\ufffdx",
		"\xc0\xaf":         "\ufffd\ufffd",
		"\xf4\x90\x80\x80": "\ufffd\ufffd\ufffd\ufffd",
		"x\xe2\x82":        "x\ufffd",
		"\xe2\x82\xac\xe2": "\u20ac\ufffd",
	} {
		if got := decodeReplace([]byte(in)); got != want {
			t.Errorf("decodeReplace(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecodeReplace(f *testing.F) {
	f.Add([]byte("\xe2\x82(\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s := decodeReplace(b); !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 out of %q", b)
		}
	})
}
