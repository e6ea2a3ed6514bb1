package pyjson

import (
	"strings"
	"testing"
)

type umInner struct {
	Name string `py:"name"`
}

type umShape struct {
	S     string             `py:"s"`
	P     *string            `py:"p"`
	B     bool               `py:"b"`
	N     int                `py:"n"`
	L     []*string          `py:"l"`
	M     map[string]umInner `py:"m"`
	A     any                `py:"a"`
	In    *umInner           `py:"in"`
	Keep  string             `py:"keep"`
	Other string             `py:"-"`
}

func TestUnmarshal(t *testing.T) {
	var v umShape
	v.Keep = "kept"
	err := Unmarshal(`{"s": "x\udcff", "p": "y", "b": true, "n": 7, "l": ["a", null], "m": {"k": {"name": "n"}},
		"a": {"z": [1.50, NaN]}, "in": {"name": "i", "extra": 1}, "unknown": [], "s": "last", "-": "no"}`, &v)
	if err != nil {
		t.Fatal(err)
	}
	if v.S != "last" || *v.P != "y" || !v.B || v.N != 7 || len(v.L) != 2 || *v.L[0] != "a" || v.L[1] != nil ||
		v.M["k"].Name != "n" || v.In.Name != "i" || v.Keep != "kept" || v.Other != "" {
		t.Errorf("%+v", v)
	}
	if got := string(EncodeCompact(v.A)); got != `{"z": [1.5, NaN]}` {
		t.Errorf("a = %s", got)
	}
	// Surrogate escapes are the bytes surrogateescape stands for.
	var s struct {
		S string `py:"s"`
	}
	if err := Unmarshal(`{"s": "/x\udcff"}`, &s); err != nil || s.S != "/x\xff" {
		t.Errorf("%q %v", s.S, err)
	}
}

func TestUnmarshalNull(t *testing.T) {
	v := umShape{S: "s", B: true, N: 3, P: new(string), L: []*string{}, A: "a", In: &umInner{}}
	if err := Unmarshal(`{"s": null, "b": null, "n": null, "p": null, "l": null, "a": null, "in": null, "m": null}`, &v); err != nil {
		t.Fatal(err)
	}
	if v.S != "s" || !v.B || v.N != 3 || v.P != nil || v.L != nil || v.A != nil || v.In != nil || v.M != nil {
		t.Errorf("%+v", v)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	for _, in := range []string{
		`{"s": 1}`, `{"b": "true"}`, `{"n": 1.5}`, `{"n": 99999999999999999999}`, `{"l": {}}`, `{"m": []}`,
		`{"in": "x"}`, `[]`, `{"s": "x"} x`, `{"s": "x"`, `{"l": [1]}`,
	} {
		var v umShape
		if err := Unmarshal(in, &v); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	if err := Unmarshal(`{}`, umShape{}); err == nil {
		t.Error("a non-pointer is accepted")
	}
}

// TestUnmarshalDeep: nesting that Decode refuses (512) is read, up to
// encoding/json's limit, for the caller to bound (probe/bounds.go).
func TestUnmarshalDeep(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	var v struct {
		A any `py:"a"`
	}
	if err := Unmarshal(`{"a": `+deep+`}`, &v); err != nil || v.A == nil {
		t.Errorf("5000 levels: %v", err)
	}
	if _, err := Decode(deep); err == nil {
		t.Error("Decode accepted 5000 levels")
	}
	if err := Unmarshal(`{"a": `+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+`}`, &v); err == nil {
		t.Error("no limit at all")
	}
}
