package schema

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// fieldShapes is a document with every shape Encode knows: nullable and
// plain nil slices and Maps, omitnil and inline members, nil and set
// pointers, Numbers, floats, passed-through values, a repeated Map key.
type fieldShapes struct {
	Plain      []string              `json:"plain"`
	NullList   []string              `json:"null_list,nullable"`
	NullMap    Map[int]              `json:"null_map,nullable"`
	EmptyMap   Map[int]              `json:"empty_map"`
	Omitted    *string               `json:"omitted,omitnil"`
	Kept       *string               `json:"kept,omitnil"`
	Nil        *fieldInner           `json:"nil"`
	Inner      *fieldInner           `json:"inner"`
	Inline     *fieldInner           `json:",inline"`
	NoInline   *fieldInner           `json:",inline"`
	Pass       Any                   `json:"pass"`
	Dup        Map[Any]              `json:"dup"`
	Float      float64               `json:"float"`
	Int        int                   `json:"int"`
	Bool       *bool                 `json:"bool"`
	Skipped    string                `json:"-"`
	Nested     Map[Map[*fieldInner]] `json:"nested"`
	unexported int
}

type fieldInner struct {
	Name  string `json:"name"`
	Count *int   `json:"count"`
	List  []any  `json:"list"`
}

func fieldDoc() fieldShapes {
	inner := &fieldInner{Name: "n", Count: Int(3), List: []any{Number("1"), "x", nil}}
	pass := Map[any]{{"a", Map[any]{{"b", Number("1.5e3")}}}, {"c", []any{Map[any]{}}}, {"n", nil}, {"t", true}}
	return fieldShapes{
		Plain:    nil,
		EmptyMap: nil,
		Kept:     Str("k"),
		Inner:    inner,
		Inline:   &fieldInner{Name: "inline"},
		Pass:     pass,
		Dup:      Map[any]{{"k", "first"}, {"other", Number("2")}, {"k", "last"}},
		Float:    2.5,
		Int:      -7,
		Bool:     Bool(false),
		Skipped:  "never",
		Nested:   Map[Map[*fieldInner]]{{"x", Map[*fieldInner]{{"y", inner}, {"z", nil}}}},
	}
}

// refField is the lookup as it was: encode the whole document, decode it,
// walk the decoded value.
func refField(doc any, path []string) ([]byte, error) {
	v, err := Decode(string(Encode(doc)))
	if err != nil {
		return nil, err
	}
	for i, seg := range path {
		switch cur := v.(type) {
		case nil:
			return nil, &FieldError{At: i, Null: true}
		case Map[any]:
			next, ok := cur.Get(seg)
			if !ok {
				return nil, &FieldError{At: i, Keys: cur.Keys()}
			}
			v = next
		default:
			typ := map[bool]string{true: "int", false: "float"}
			switch c := cur.(type) {
			case string:
				return nil, &FieldError{At: i, Type: "str"}
			case bool:
				return nil, &FieldError{At: i, Type: "bool"}
			case []any:
				return nil, &FieldError{At: i, Type: "list"}
			case Number:
				return nil, &FieldError{At: i, Type: typ[c.IsInteger()]}
			}
		}
	}
	return EncodeCompact(v), nil
}

// paths lists every path into v (a decoded document), each followed by a
// key that is not there.
func paths(v any, prefix []string, out *[][]string) {
	here := append(prefix[:len(prefix):len(prefix)], "no-such-key")
	*out = append(*out, here)
	if m, ok := v.(Map[any]); ok {
		for _, e := range m {
			p := append(prefix[:len(prefix):len(prefix)], e.Key)
			*out = append(*out, p)
			paths(e.Value, p, out)
		}
	}
}

// TestFieldMatchesDecodedDocument: for every path of the document, and one
// key too far below each, Field answers what the decoded document does.
func TestFieldMatchesDecodedDocument(t *testing.T) {
	for name, doc := range map[string]any{"shapes": fieldDoc(), "not captured": NotCaptured()} {
		t.Run(name, func(t *testing.T) {
			decoded, err := Decode(string(Encode(doc)))
			if err != nil {
				t.Fatal(err)
			}
			var all [][]string
			paths(decoded, nil, &all)
			for _, p := range all {
				if strings.Join(p, ".") == "dup" {
					continue // Encode writes a repeated key twice; json.loads keeps one
				}
				got, gotErr := Field(doc, p)
				want, wantErr := refField(doc, p)
				var g, w *FieldError
				errors.As(gotErr, &g)
				errors.As(wantErr, &w)
				switch {
				case (g == nil) != (w == nil):
					t.Errorf("%q: error %v, want %v", p, gotErr, wantErr)
				case g != nil && (g.At != w.At || g.Null != w.Null || g.Type != w.Type || strings.Join(g.Keys, ",") != strings.Join(w.Keys, ",")):
					t.Errorf("%q: %+v, want %+v", p, *g, *w)
				case !bytes.Equal(got, want):
					t.Errorf("%q: %s, want %s", p, got, want)
				}
			}
			if len(all) < 20 {
				t.Errorf("only %d paths", len(all))
			}
		})
	}
}

// TestFieldDeepValue: a value nested beyond what Decode accepts elsewhere in
// the document does not stop a lookup, and is itself returned whole.
func TestFieldDeepValue(t *testing.T) {
	var deep any = Number("1")
	for range 2000 {
		deep = []any{deep}
	}
	doc := fieldDoc()
	doc.Pass = deep
	if _, err := Decode(string(Encode(doc))); err == nil {
		t.Fatal("the document is not deep enough to fail decoding")
	}
	if got, err := Field(doc, []string{"inner", "name"}); err != nil || string(got) != `"n"` {
		t.Errorf("inner.name: %s, %v", got, err)
	}
	if got, err := Field(doc, []string{"pass"}); err != nil || len(got) != 4001 {
		t.Errorf("pass: %d bytes, %v", len(got), err)
	}
}

// BenchmarkField: a lookup on the typed document against the encode,
// decode and walk that --field did before.
func BenchmarkField(b *testing.B) {
	doc := NotCaptured()
	path := []string{"rocm", "version"}
	b.Run("typed", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := Field(doc, path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode+decode", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := refField(doc, path); err != nil {
				b.Fatal(err)
			}
		}
	})
}
