package probe

import (
	"slices"
	"testing"
)

// TestCollectPythonVersion: the interpreter's version when the helper
// reported one; the row also carries the helper's own reason and every
// value it bounded (docs/fields-process.md#probe-order).
func TestCollectPythonVersion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       *pyFacts
		want    string
		reasons []string
	}{
		{"ok", &pyFacts{outcome: pyOK, Interpreter: &pyInterpreter{PythonVersion: "3.12.3"}}, "3.12.3", nil},
		{"bounded", &pyFacts{outcome: pyOK, Interpreter: &pyInterpreter{PythonVersion: "3.12.3"}, bounded: []string{"torch.version too long"}},
			"3.12.3", []string{"python_version: torch.version too long"}},
		{"no interpreter", &pyFacts{outcome: pyNotFound, detail: "no python3 on PATH"}, "", []string{"python_version: no python3 on PATH"}},
	} {
		s := factsState(tc.f)
		if got := collectPythonVersion(s); got.version != tc.want || !slices.Equal(s.reasons, tc.reasons) {
			t.Errorf("%s: %q %q, want %q %q", tc.name, got.version, s.reasons, tc.want, tc.reasons)
		}
	}
}
