package fleetgen

import (
	"bytes"
	"strings"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
)

// TestTemplateAndNode: the template holds every placeholder once, grows
// to about the size asked, refuses a plant at a path that does not
// exist; each node's document is valid JSON without a placeholder left,
// its own, and the same every time.
func TestTemplateAndNode(t *testing.T) {
	base := testdoc.GoldenBytes(t, "rocm-classic-7.2.json")
	tmpl, err := Template(base, 200000, map[string]any{"host.machine": "planted"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tmpl); n < 190000 || n > 210000 {
		t.Errorf("template of %d bytes, want about 200000", n)
	}
	for _, m := range []string{nsMark, capturedMark, startedMark, bootMark, idMark, inodeMark, `"planted"`} {
		if !bytes.Contains(tmpl, []byte(m)) {
			t.Errorf("template lacks %s", m)
		}
	}
	if _, err := Template(base, 0, map[string]any{"host.no_such_key": 1}); err == nil || !strings.Contains(err.Error(), "no such key") {
		t.Errorf("plant at a missing path: %v", err)
	}
	a, b := Node(tmpl, 0), Node(tmpl, 1)
	for _, doc := range [][]byte{a, b} {
		if _, err := pyjson.Decode(string(doc)); err != nil {
			t.Fatalf("node document: %v", err)
		}
		for _, m := range []string{nsMark, capturedMark, startedMark, bootMark, containerMark, "NODENSID-", "NODEINODE"} {
			if bytes.Contains(doc, []byte(m)) {
				t.Errorf("node document keeps %s", m)
			}
		}
	}
	if bytes.Equal(a, b) || !bytes.Equal(a, Node(tmpl, 0)) {
		t.Error("node documents must differ between nodes and be reproducible")
	}
}
