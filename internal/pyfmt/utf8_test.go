package pyfmt

import (
	"testing"
	"unicode/utf8"
)

func TestDecodeUTF8MatchesCPython(t *testing.T) {
	// Messages from CPython 3.12's bytes.decode().
	tests := map[string]string{
		"\xe2\x82":         "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data",
		"\xe2":             "'utf-8' codec can't decode byte 0xe2 in position 0: unexpected end of data",
		"\xe2(":            "'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte",
		"\xe2\x82(":        "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte",
		"ab\xff":           "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte",
		"\xf0\x9f\x98":     "'utf-8' codec can't decode bytes in position 0-2: unexpected end of data",
		"\xed\xa0\x80":     "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte",
		"\xc0\x80":         "'utf-8' codec can't decode byte 0xc0 in position 0: invalid start byte",
		"\xf0\x9f((":       "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte",
		"ok \u00e9\u2028 ": "",
	}
	for in, want := range tests {
		got := ""
		if err := DecodeUTF8([]byte(in)); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("DecodeUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecodeUTF8(f *testing.F) {
	for _, s := range []string{"ok", "\xe2\x82", "\xff", "\xed\xa0\x80", "é\u2028"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e := DecodeUTF8(b)
		if (e == nil) != utf8.Valid(b) {
			t.Fatalf("DecodeUTF8(%q) = %v, utf8.Valid = %v", b, e, utf8.Valid(b))
		}
		if e != nil && (e.Start < 0 || e.End > len(b) || e.End <= e.Start || b[e.Start] != e.Byte) {
			t.Fatalf("bad position in %q: %+v", b, e)
		}
	})
}

// DecodeReplace matches Python's bytes.decode("utf-8", "replace"): one
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
		if got := DecodeReplace([]byte(in)); got != want {
			t.Errorf("DecodeReplace(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecodeReplace(f *testing.F) {
	f.Add([]byte("\xe2\x82(\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s := DecodeReplace(b); !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 out of %q", b)
		}
	})
}
