package probe

import "testing"

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
