package testdoc

import (
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
)

// TestEdits: Set replaces a member in place (order kept) or appends a new
// last member; Del removes one; the document edited is not changed.
func TestEdits(t *testing.T) {
	doc := Object{{Key: "a", Value: "1"}, {Key: "b", Value: Object{{Key: "c", Value: "2"}, {Key: "d", Value: nil}}}}
	for _, tc := range []struct {
		edit Edit
		want string
	}{
		{Set("b.c", "3"), `{"a": "1", "b": {"c": "3", "d": null}}`},
		{Set("b.e", true), `{"a": "1", "b": {"c": "2", "d": null, "e": true}}`},
		{Set("z", nil), `{"a": "1", "b": {"c": "2", "d": null}, "z": null}`},
		{Del("b.d"), `{"a": "1", "b": {"c": "2"}}`},
		{Del("a"), `{"b": {"c": "2", "d": null}}`},
	} {
		if got := string(pyjson.EncodeCompact(tc.edit(t, doc))); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
	if got := string(pyjson.EncodeCompact(doc)); got != `{"a": "1", "b": {"c": "2", "d": null}}` {
		t.Errorf("the edited document changed: %s", got)
	}
}

// TestEdited: a golden scenario document with an edit applied.
func TestEdited(t *testing.T) {
	m := Edited(t, "rocm-classic-7.2.json", Placed)
	if v, _ := m.Get("probe_namespace"); v != "mnt:50d635339c5cddd4" {
		t.Errorf("probe_namespace %v", v)
	}
	if v, _ := m.Get("schema_version"); v != "1.16" {
		t.Errorf("schema_version %v", v)
	}
}
