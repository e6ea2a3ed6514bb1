package schema

import (
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestNotCapturedRuntimeContext: the Python probe's defaults, baremetal
// and the system interpreter, nothing named.
func TestNotCapturedRuntimeContext(t *testing.T) {
	want := `{"type": "baremetal", "python_env": "system", "venv_path": null, "conda_env_name": null}`
	if got := string(pyjson.EncodeCompact(NotCapturedRuntimeContext())); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
