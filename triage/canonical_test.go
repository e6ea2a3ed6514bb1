package triage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestCanonicalKeepsWrittenOrder: every object of a golden document that
// the schema describes is already in the canonical order (the schema's,
// as aorta-probe writes it), so the canonical form changes no value or
// digest of a document as written; only free-key maps (rocfft's
// env_overrides, system_health, the build flags) go to byte order, which
// the walks show in their rank order anyway.
func TestCanonicalKeepsWrittenOrder(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden documents: %v", err)
	}
	var walk func(written, canon any, o *order, path string) string
	walk = func(written, canon any, o *order, path string) string {
		switch x := written.(type) {
		case object:
			y := canon.(object)
			if o != nil && o.rank != nil && !slices.Equal(x.Keys(), y.Keys()) {
				return path + ": written " + strings.Join(x.Keys(), ",") + ", canonical " + strings.Join(y.Keys(), ",")
			}
			for _, e := range x {
				v, _ := y.Get(e.Key)
				if s := walk(e.Value, v, o.of(e.Key), path+"."+e.Key); s != "" {
					return s
				}
			}
		case []any:
			for i, e := range x {
				if s := walk(e, canon.([]any)[i], o.itemsOf(), path+"[]"); s != "" {
					return s
				}
			}
		}
		return ""
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := pyjson.Decode(string(text))
		if err != nil {
			t.Fatal(err)
		}
		d, err := Parse(f, string(text))
		if err != nil {
			t.Fatal(err)
		}
		if s := walk(v, d.root, orders(), "$"); s != "" {
			t.Errorf("%s: the canonical form reorders an object the schema describes: %s", f, s)
		}
	}
}

// TestCanonicalSortedVariant: a document whose nested members are all in
// byte order has the canonical form of the document as written.
func TestCanonicalSortedVariant(t *testing.T) {
	text := goldenBytes(t, "gpus-mi308x-cpx.json")
	v, err := pyjson.Decode(string(text))
	if err != nil {
		t.Fatal(err)
	}
	sortAll(v)
	a, err := Parse("a", string(text))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("b", string(pyjson.Encode(v)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := compact(b.root), compact(a.root); got != want {
		t.Errorf("sorted variant's canonical form differs:\n%s", firstDivergence(got, want))
	}
}

// sortAll puts every object of v in byte order of its keys, in place.
func sortAll(v any) {
	switch x := v.(type) {
	case object:
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if x[j].Key < x[i].Key {
					x[i], x[j] = x[j], x[i]
				}
			}
			sortAll(x[i].Value)
		}
	case []any:
		for _, e := range x {
			sortAll(e)
		}
	}
}

func firstDivergence(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-80)
	return "got  …" + strings.ToValidUTF8(got[lo:min(len(got), i+80)], "?") + "\nwant …" + strings.ToValidUTF8(want[lo:min(len(want), i+80)], "?")
}
