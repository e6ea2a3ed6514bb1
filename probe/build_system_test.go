package probe

import (
	"testing"
	"unicode/utf8"
)

func TestUTF8CheckMatchesCPython(t *testing.T) {
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
		err := utf8Check([]byte(in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("utf8Check(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzUTF8Check(f *testing.F) {
	for _, s := range []string{"ok", "\xe2\x82", "\xff", "\xed\xa0\x80", "é\u2028"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := utf8Check(b)
		if (err == nil) != utf8.Valid(b) {
			t.Fatalf("utf8Check(%q) = %v, utf8.Valid = %v", b, err, utf8.Valid(b))
		}
		if e, ok := err.(*decodeError); ok && (e.pos < 0 || e.end > len(b) || e.end <= e.pos || b[e.pos] != e.b) {
			t.Fatalf("bad position in %q: %+v", b, e)
		}
	})
}
