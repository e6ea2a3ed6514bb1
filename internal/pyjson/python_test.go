package pyjson

import "testing"

func TestStrOfNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"1e5": "100000.0", "1e16": "1e+16", "1.5e-5": "1.5e-05", "0.0001": "0.0001", "-0.0": "-0.0",
		"123456789012345678.0": "1.2345678901234568e+17", "NaN": "nan", "-Infinity": "-inf", "1e400": "inf",
		"-1e400": "-inf", "2.50": "2.5", "12": "12", "123456789012345678901234567890": "123456789012345678901234567890",
		// json.loads("-0") is the int 0. The copy in probe/therock.go
		// (pyNumberStr) wrote "-0" here and "Infinity" for 1e400.
		"-0": "0",
	} {
		if got := Str(Number(in)); got != want {
			t.Errorf("Str(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestStrReprTypeName(t *testing.T) {
	v := Map[any]{{Key: "a", Value: []any{nil, true, false, Number("1"), "it's"}}, {Key: "b", Value: Map[any]{}}}
	for _, tc := range []struct {
		v                any
		str, repr, typed string
	}{
		{nil, "None", "None", "NoneType"},
		{true, "True", "True", "bool"},
		{"x\n", "x\n", `'x\n'`, "str"},
		{Number("7"), "7", "7", "int"},
		{Number("7.0"), "7.0", "7.0", "float"},
		{[]any{"a"}, "['a']", "['a']", "list"},
		{(*string)(nil), "None", "None", "NoneType"},
		{new("x"), "x", "'x'", "str"},
		{v, `{'a': [None, True, False, 1, "it's"], 'b': {}}`, `{'a': [None, True, False, 1, "it's"], 'b': {}}`, "dict"},
	} {
		if got := Str(tc.v); got != tc.str {
			t.Errorf("Str(%v) = %s, want %s", tc.v, got, tc.str)
		}
		if got := Repr(tc.v); got != tc.repr {
			t.Errorf("Repr(%v) = %s, want %s", tc.v, got, tc.repr)
		}
		if got := TypeName(tc.v); got != tc.typed {
			t.Errorf("TypeName(%v) = %s, want %s", tc.v, got, tc.typed)
		}
	}
}

// TestTruthyOptional: an optional string of the typed document is false
// when null or empty, as the value it stands for.
func TestTruthyOptional(t *testing.T) {
	for _, tc := range []struct {
		v    *string
		want bool
	}{{nil, false}, {new(""), false}, {new("0"), true}} {
		if got := Truthy(tc.v); got != tc.want {
			t.Errorf("Truthy(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
