package pyjson_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// fieldShapes is a document with every shape Encode knows: nullable and
// plain nil slices and Maps, omitnil and inline members, nil and set
// pointers, Numbers, floats, passed-through values, a repeated Map key.
type fieldShapes struct {
	Plain    []string                            `py:"plain"`
	NullList []string                            `py:"null_list,nullable"`
	NullMap  pyjson.Map[int]                     `py:"null_map,nullable"`
	EmptyMap pyjson.Map[int]                     `py:"empty_map"`
	Omitted  *string                             `py:"omitted,omitnil"`
	Kept     *string                             `py:"kept,omitnil"`
	Nil      *fieldInner                         `py:"nil"`
	Inner    *fieldInner                         `py:"inner"`
	Inline   *fieldInner                         `py:",inline"`
	NoInline *fieldInner                         `py:",inline"`
	Pass     pyjson.Any                          `py:"pass"`
	Dup      pyjson.Map[pyjson.Any]              `py:"dup"`
	Float    float64                             `py:"float"`
	Int      int                                 `py:"int"`
	Bool     *bool                               `py:"bool"`
	Skipped  string                              `py:"-"`
	Nested   pyjson.Map[pyjson.Map[*fieldInner]] `py:"nested"`
	//lint:ignore U1000 present to show that unexported fields are skipped
	unexported int
}

type fieldInner struct {
	Name  string `py:"name"`
	Count *int   `py:"count"`
	List  []any  `py:"list"`
}

func fieldDoc() fieldShapes {
	inner := &fieldInner{Name: "n", Count: schema.Int(3), List: []any{pyjson.Number("1"), "x", nil}}
	pass := pyjson.Map[any]{{"a", pyjson.Map[any]{{"b", pyjson.Number("1.5e3")}}}, {"c", []any{pyjson.Map[any]{}}}, {"n", nil}, {"t", true}}
	return fieldShapes{
		Plain:    nil,
		EmptyMap: nil,
		Kept:     schema.Str("k"),
		Inner:    inner,
		Inline:   &fieldInner{Name: "inline"},
		Pass:     pass,
		Dup:      pyjson.Map[any]{{"k", "first"}, {"other", pyjson.Number("2")}, {"k", "last"}},
		Float:    2.5,
		Int:      -7,
		Bool:     schema.Bool(false),
		Skipped:  "never",
		Nested:   pyjson.Map[pyjson.Map[*fieldInner]]{{"x", pyjson.Map[*fieldInner]{{"y", inner}, {"z", nil}}}},
	}
}

// refField is the lookup as it was: encode the whole document, decode it,
// walk the decoded value.
func refField(doc any, path []string) ([]byte, error) {
	v, err := pyjson.Decode(string(pyjson.Encode(doc)))
	if err != nil {
		return nil, err
	}
	for i, seg := range path {
		switch cur := v.(type) {
		case nil:
			return nil, &pyjson.FieldError{At: i, Null: true}
		case pyjson.Map[any]:
			next, ok := cur.Get(seg)
			if !ok {
				return nil, &pyjson.FieldError{At: i, Keys: cur.Keys()}
			}
			v = next
		default:
			typ := map[bool]string{true: "int", false: "float"}
			switch c := cur.(type) {
			case string:
				return nil, &pyjson.FieldError{At: i, Type: "str"}
			case bool:
				return nil, &pyjson.FieldError{At: i, Type: "bool"}
			case []any:
				return nil, &pyjson.FieldError{At: i, Type: "list"}
			case pyjson.Number:
				return nil, &pyjson.FieldError{At: i, Type: typ[c.IsInteger()]}
			}
		}
	}
	return pyjson.EncodeCompact(v), nil
}

// paths lists every path into v (a decoded document), each followed by a
// key that is not there.
func paths(v any, prefix []string, out *[][]string) {
	here := append(prefix[:len(prefix):len(prefix)], "no-such-key")
	*out = append(*out, here)
	if m, ok := v.(pyjson.Map[any]); ok {
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
	for name, doc := range map[string]any{"shapes": fieldDoc(), "not captured": schema.NotCaptured()} {
		t.Run(name, func(t *testing.T) {
			decoded, err := pyjson.Decode(string(pyjson.Encode(doc)))
			if err != nil {
				t.Fatal(err)
			}
			var all [][]string
			paths(decoded, nil, &all)
			for _, p := range all {
				if strings.Join(p, ".") == "dup" {
					continue // Encode writes a repeated key twice; json.loads keeps one
				}
				got, gotErr := pyjson.Field(doc, p)
				want, wantErr := refField(doc, p)
				var g, w *pyjson.FieldError
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
	var deep any = pyjson.Number("1")
	for range 2000 {
		deep = []any{deep}
	}
	doc := fieldDoc()
	doc.Pass = deep
	if _, err := pyjson.Decode(string(pyjson.Encode(doc))); err == nil {
		t.Fatal("the document is not deep enough to fail decoding")
	}
	if got, err := pyjson.Field(doc, []string{"inner", "name"}); err != nil || string(got) != `"n"` {
		t.Errorf("inner.name: %s, %v", got, err)
	}
	if got, err := pyjson.Field(doc, []string{"pass"}); err != nil || len(got) != 4001 {
		t.Errorf("pass: %d bytes, %v", len(got), err)
	}
}

// BenchmarkField: a lookup on the typed document against the encode,
// decode and walk that --field did before.
func BenchmarkField(b *testing.B) {
	doc := schema.NotCaptured()
	path := []string{"rocm", "version"}
	b.Run("typed", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := pyjson.Field(doc, path); err != nil {
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
