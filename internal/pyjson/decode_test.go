package pyjson

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string // want is the compact re-encoding, or the error
	}{
		{"object order kept", `{"b": 1, "a": [true, false, null]}`, `{"b": 1, "a": [true, false, null]}`},
		{"duplicate key: last value, first position", `{"a": 1, "b": 2, "a": 3}`, `{"a": 3, "b": 2}`},
		{"nested containers and duplicates", `{"a": [{"b": 1, "c": [2, {"b": 3, "b": 4}, []], "b": 5}, [], {}], "d": {"e": {}}, "a2": [[[]]]}`,
			`{"a": [{"b": 5, "c": [2, {"b": 4}, []]}, [], {}], "d": {"e": {}}, "a2": [[[]]]}`},
		{"float re-rendered", `[1e5, 2.50, -0.0, 1E-7]`, `[100000.0, 2.5, -0.0, 1e-07]`},
		{"big int exact", `123456789012345678901234567890`, `123456789012345678901234567890`},
		{"python constants", `[NaN, Infinity, -Infinity]`, `[NaN, Infinity, -Infinity]`},
		{"escapes", `"\u00e9\ud83d\ude00\n\/"`, `"\u00e9\ud83d\ude00\n/"`},
		{"whitespace around", " \n\t{}\r\n", `{}`},
		{"empty", ``, `Expecting value: line 1 column 1 (char 0)`},
		{"blank", "  \n ", `Expecting value: line 2 column 2 (char 4)`},
		{"extra data", `{} x`, `Extra data: line 1 column 4 (char 3)`},
		{"missing comma", `[1 2]`, `Expecting ',' delimiter: line 1 column 4 (char 3)`},
		{"bad key", `{1: 2}`, `Expecting property name enclosed in double quotes: line 1 column 2 (char 1)`},
		{"missing colon", `{"a" 1}`, `Expecting ':' delimiter: line 1 column 6 (char 5)`},
		{"unterminated", `"abc`, `Unterminated string starting at: line 1 column 1 (char 0)`},
		{"control in string", "\"a\nb\"", `Invalid control character at: line 1 column 3 (char 2)`},
		{"bad escape", `"\x"`, `Invalid \escape: line 1 column 2 (char 1)`},
		{"leading zero", `01`, `Extra data: line 1 column 2 (char 1)`},
		{"char counts code points", `"é" x`, `Extra data: line 1 column 5 (char 4)`},
		{"truncated literal", `tru`, `Expecting value: line 1 column 1 (char 0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode(tc.in)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = string(EncodeCompact(v))
			}
			if got != tc.want {
				t.Errorf("Decode(%q) -> %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestDecodeDepthBound(t *testing.T) {
	if _, err := Decode(strings.Repeat("[", 100000)); err == nil {
		t.Fatal("deeply nested input accepted")
	}
}

// FuzzDecode: the decoder never panics, and whatever it accepts re-encodes
// to ASCII JSON that decodes to the same encoding again.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x"]}`, `NaN`, `"\ud800"`, `{"a":1,"a":2}`, "[\"\xff\"]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Decode(s)
		if err != nil {
			return
		}
		out := Encode(v)
		for _, c := range out {
			if c >= 0x80 {
				t.Fatalf("non-ASCII byte in %q", out)
			}
		}
		v2, err := Decode(string(out))
		if err != nil {
			t.Fatalf("re-decode of %q: %v", out, err)
		}
		if string(Encode(v2)) != string(out) {
			t.Fatalf("encoding not stable for %q", s)
		}
	})
}

// FuzzEncodeString: every string encodes to printable ASCII inside quotes,
// and valid UTF-8 decodes back to itself.
func FuzzEncodeString(f *testing.F) {
	for _, s := range []string{"", "é", "\x00\x7f", "😀", "\xff\xfe", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Encode(s)
		for _, c := range out {
			if c < 0x20 || c > 0x7e {
				t.Fatalf("byte %#x in %q", c, out)
			}
		}
		if !utf8.ValidString(s) {
			return
		}
		back, err := Decode(string(out))
		if err != nil || back != s {
			t.Fatalf("round trip of %q gave %q, %v", s, back, err)
		}
	})
}
