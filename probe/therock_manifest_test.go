package probe

import (
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestManifestStringNumbers: a number in the manifest becomes Python's
// str() of what json.loads made of it. Before pyjson.Str, "-0" stayed "-0"
// (Python: int 0, "0") and 1e400 became "Infinity" (Python: inf, "inf").
func TestManifestStringNumbers(t *testing.T) {
	for in, want := range map[string]string{"-0": "0", "1e400": "inf", "12": "12", "2.50": "2.5", "1e16": "1e+16"} {
		m, err := pyjson.Decode(`{"rocm_version": ` + in + `}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := deref0(manifestString(m.(pyjson.Map[any]), "rocm_version")); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
