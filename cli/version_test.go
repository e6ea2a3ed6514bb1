package cli

import "testing"

// TestVersion: what the linker set wins; a test binary has no module
// version of its own, so without it the version is "dev".
func TestVersion(t *testing.T) {
	if got := Version(); got != "dev" {
		t.Errorf("Version() = %q, want dev", got)
	}
	defer func(v string) { version = v }(version)
	version = "1.2.3"
	if got := Version(); got != "1.2.3" {
		t.Errorf("Version() with -X = %q, want 1.2.3", got)
	}
}
