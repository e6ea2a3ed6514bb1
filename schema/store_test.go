package schema

import (
	"os"
	"path/filepath"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestStoreRoundTrip: every golden document, stored back into a Snapshot
// (pyjson.Unmarshal, as aorta-probe --summary DOC reads one), encodes to
// the same bytes: no member is lost or changed on the way, the Maps and
// the inline blocks (build_system's buck2, a present NIC) included.
func TestStoreRoundTrip(t *testing.T) {
	docs, err := filepath.Glob("../testdata/golden/*.json")
	if err != nil || len(docs) < 10 {
		t.Fatalf("golden documents: %v, %v", docs, err)
	}
	docs = append(docs, "") // the not-captured document
	for _, p := range docs {
		text := string(pyjson.Encode(NotCaptured()))
		if p != "" {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		var s Snapshot
		if err := pyjson.Unmarshal(text, &s); err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := string(pyjson.Encode(&s)); got != text {
			i := 0
			for i < len(got) && i < len(text) && got[i] == text[i] {
				i++
			}
			t.Errorf("%s: differs at byte %d: got …%s…, want …%s…", p, i, got[max(0, i-80):min(len(got), i+40)], text[max(0, i-80):min(len(text), i+40)])
		}
	}
}

// TestStoreMismatch: a value of another type is an error naming where.
func TestStoreMismatch(t *testing.T) {
	var s Snapshot
	err := pyjson.Unmarshal(`{"host": {"kernel_release": 5}, "nics": {"cx7": {"present": true, "links": [{"device": 1}]}}}`, &s)
	if err == nil || err.Error() != "pyjson: cannot store a int in string at $.host.kernel_release" {
		t.Errorf("kernel_release: %v", err)
	}
	err = pyjson.Unmarshal(`{"nics": {"cx7": {"present": true, "links": [{"device": 1}]}}}`, &s)
	if err == nil || err.Error() != "pyjson: cannot store a int in string at $.nics.cx7.links[0].device" {
		t.Errorf("links: %v", err)
	}
}
