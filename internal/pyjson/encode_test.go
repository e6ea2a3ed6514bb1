package pyjson

import (
	"math"
	"testing"
)

// The vectors below were written by hand from the rules of Python's
// json.dumps (ensure_ascii=True, indent=2) in
// docs/design-notes.md#python-emulation-and-the-json-codec, not produced by
// this encoder.

func TestEncodeString(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "gfx942", `"gfx942"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"short escapes", "\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"other controls", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"DEL", "\x7f", `"\u007f"`},
		{"no HTML escaping", "</a>&", `"</a>&"`},
		{"slash raw", "/opt/rocm", `"/opt/rocm"`},
		{"latin-1", "é", `"\u00e9"`},
		{"NBSP", "\u00a0", `"\u00a0"`},
		{"line separators", "\u2028\u2029", `"\u2028\u2029"`},
		{"lower-case hex", "\u00ff\u0aBC", `"\u00ff\u0abc"`},
		{"BMP max", "\uffff", `"\uffff"`},
		{"surrogate pair", "😀", `"\ud83d\ude00"`},
		{"astral max", "\U0010ffff", `"\udbff\udfff"`},
		{"ellipsis", "…", `"\u2026"`},
		{"invalid byte", "a\xffb", `"a\udcffb"`},
		{"lone continuation", "\x80", `"\udc80"`},
		{"truncated sequence", "\xe2\x82", `"\udce2\udc82"`},
		{"encoded surrogate", "\xed\xa0\x80", `"\udced\udca0\udc80"`},
		{"overlong slash", "\xc0\xaf", `"\udcc0\udcaf"`},
		{"mixed", "mnt:[4026531840]\x00é\xfe", `"mnt:[4026531840]\u0000\u00e9\udcfe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Encode(tc.in)); got != tc.want {
				t.Errorf("Encode(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestEncodeCanonicalString(t *testing.T) {
	// ensure_ascii=False: raw UTF-8, U+2028 and DEL raw, controls escaped.
	got := string(EncodeCanonical("k=v<&>é\u2028\x7f\n\x01"))
	want := "\"k=v<&>é\u2028\x7f\\n\\u0001\""
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEncodeFloat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{1, "1.0"},
		{-2.5, "-2.5"},
		{100000, "100000.0"},
		{0.1, "0.1"},
		{1e-4, "0.0001"},
		{1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"},
		{123456789012345.6, "123456789012345.6"},
		{1e15, "1000000000000000.0"},
		{1e16, "1e+16"},
		{1.5e16, "1.5e+16"},
		{1e100, "1e+100"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
	} {
		if got := string(Encode(tc.in)); got != tc.want {
			t.Errorf("Encode(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestEncodeNumberLiteral(t *testing.T) {
	for in, want := range map[Number]string{
		"30227121935":              "30227121935",
		"123456789012345678901234": "123456789012345678901234",
		"-0":                       "-0",
		"1e5":                      "100000.0",
		"1E+2":                     "100.0",
		"2.50":                     "2.5",
		"1e400":                    "Infinity",
		"NaN":                      "NaN",
		"-Infinity":                "-Infinity",
	} {
		if got := string(Encode(in)); got != want {
			t.Errorf("Encode(Number(%q)) = %s, want %s", in, got, want)
		}
	}
}

type inner struct {
	B *bool `py:"b"`
}

type sample struct {
	S       string   `py:"s"`
	N       *int     `py:"n"`
	L       []string `py:"l"`
	NL      []string `py:"nl,nullable"`
	E       []int    `py:"e"`
	M       Map[any] `py:"m"`
	NM      Map[int] `py:"nm,nullable"`
	Skip    string   `py:"-"`
	Omitted *string  `py:"omitted,omitnil"`
	*inner  `py:",inline"`
	Nested  []Map[any] `py:"nested"`
}

func TestEncodeShapes(t *testing.T) {
	v := sample{
		S: "x", L: []string{"a", "b"}, E: []int{},
		M:      Map[any]{{"z", nil}, {"a", true}, {"n", Number("1")}, {"o", Map[any]{}}, {"l", []any{}}},
		inner:  &inner{B: Bool(false)},
		Nested: []Map[any]{{{"k", "v"}}},
	}
	want := `{
  "s": "x",
  "n": null,
  "l": [
    "a",
    "b"
  ],
  "nl": null,
  "e": [],
  "m": {
    "z": null,
    "a": true,
    "n": 1,
    "o": {},
    "l": []
  },
  "nm": null,
  "b": false,
  "nested": [
    {
      "k": "v"
    }
  ]
}`
	if got := string(Encode(v)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	compact := `{"s": "x", "n": null, "l": ["a", "b"], "nl": null, "e": [], "m": {"z": null, "a": true, "n": 1, "o": {}, "l": []}, "nm": null, "b": false, "nested": [{"k": "v"}]}`
	if got := string(EncodeCompact(v)); got != compact {
		t.Errorf("compact got\n%s\nwant\n%s", got, compact)
	}
}

func TestEncodeCanonicalSortsKeys(t *testing.T) {
	v := Map[any]{{"default_context_confirmed", false}, {"buck_argv", []any{"@root//mode/debug", "-c", "build.profile=debug"}}}
	want := `{"buck_argv":["@root//mode/debug","-c","build.profile=debug"],"default_context_confirmed":false}`
	if got := string(EncodeCanonical(v)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func Bool(b bool) *bool { return &b }
func Int(n int) *int    { return &n }
