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

type StoreDetail struct {
	Driver *string `py:"driver"`
	Links  []int   `py:"links,nullable"`
}

type storeShape struct {
	Present      *bool `py:"present"`
	*StoreDetail `py:",inline"`
	Knobs        Map[*string] `py:"knobs"`
	Size         Number       `py:"size"`
	ID           uint64       `py:"id"`
}

// TestStore: the document types' own shapes go back in: a Map keeps its
// members in order, an inline struct pointer is allocated only when one of
// its keys is there, a Number keeps its literal, an unsigned field takes a
// non-negative integer; a mismatch names where it is.
func TestStore(t *testing.T) {
	text := `{"present": true, "driver": "mlx5", "links": [1, 2], "knobs": {"B": "1", "A": null}, "size": 1.50, "id": 18446744073709551615}`
	var v storeShape
	if err := Unmarshal(text, &v); err != nil {
		t.Fatal(err)
	}
	if v.StoreDetail == nil || *v.Driver != "mlx5" || len(v.Links) != 2 || v.Size != "1.50" || v.ID != 1<<64-1 {
		t.Errorf("stored %+v %+v", v, v.StoreDetail)
	}
	if got := string(EncodeCompact(v.Knobs)); got != `{"B": "1", "A": null}` {
		t.Errorf("knobs %s", got)
	}
	var bare storeShape
	if err := Unmarshal(`{"present": false}`, &bare); err != nil || bare.StoreDetail != nil {
		t.Errorf("no detail keys: %v, detail %+v", err, bare.StoreDetail)
	}
	for _, tc := range []struct{ text, want string }{
		{`{"id": -1}`, "pyjson: cannot store a int in uint64 at $.id"},
		{`{"links": [1, "x"]}`, "pyjson: cannot store a str in int at $.links[1]"},
		{`{"knobs": {"A": 1}}`, "pyjson: cannot store a int in string at $.knobs.A"},
		{`{"knobs": []}`, "pyjson: cannot store a list in pyjson.Map[*string] at $.knobs"},
	} {
		var v storeShape
		if err := Unmarshal(tc.text, &v); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.text, err, tc.want)
		}
	}
}
