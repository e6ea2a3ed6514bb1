package schema

import (
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestNotRequestedBuckInvocation: without --buck-target the block says
// not_requested, names no context and compares nothing; its lists are
// empty, never null.
func TestNotRequestedBuckInvocation(t *testing.T) {
	want := `{"status": "not_requested", "target": null, "context_source": "none", "mode_files": [], "config_keys": [], "modifiers": [], "option_order": [], "context_fingerprint": null, "configured_root_target": null, "comparison": "not_compared"}`
	if got := string(pyjson.EncodeCompact(NotRequestedBuckInvocation())); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
