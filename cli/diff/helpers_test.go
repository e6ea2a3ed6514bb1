package diff

import (
	"testing"

	"aorta-probe/internal/fleetgen"
	"aorta-probe/internal/testdoc"
)

// The documents these tests compare come from internal/testdoc: golden
// scenario documents with edits.
type (
	object = testdoc.Object
	edit   = testdoc.Edit
)

var (
	goldenBytes = testdoc.GoldenBytes
	golden      = testdoc.Golden
	set         = testdoc.Set
	del         = testdoc.Del
	placed      = testdoc.Placed
	proven      = testdoc.Proven
)

// doc is a golden document with edits (name is unused: the call shape
// of triage's own helper, whose documents these tests write).
func doc(t testing.TB, _, goldenFile string, edits ...edit) object {
	t.Helper()
	return testdoc.Edited(t, goldenFile, edits...)
}

// fleetTemplate is fleetgen.Template over the golden rocm-classic-7.2.json
// document, with set's fields.
func fleetTemplate(t testing.TB, set map[string]any) []byte {
	t.Helper()
	tmpl, err := fleetgen.Template(goldenBytes(t, "rocm-classic-7.2.json"), 0, set)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}
