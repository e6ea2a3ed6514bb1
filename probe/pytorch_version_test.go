package probe

import (
	"slices"
	"testing"

	"aorta-probe/internal/golden"
)

// TestCollectPytorchVersion: torch.__version__ as imported at the
// pytorch_version call site, else null and the Python probe's reason.
func TestCollectPytorchVersion(t *testing.T) {
	v := "2.10.0+rocm7.1"
	for _, tc := range []struct {
		name    string
		f       *pyFacts
		want    string
		reasons []string
	}{
		{"ok", &pyFacts{outcome: pyOK, TorchSites: map[string]string{"pytorch_version": "ok"}, Torch: &pyTorch{Version: &v}}, v, nil},
		{"no __version__", &pyFacts{outcome: pyOK, TorchSites: map[string]string{"pytorch_version": "ok"}, Torch: &pyTorch{}},
			"null", []string{"pytorch_version: torch lacks __version__ attribute"}},
		{"missing", &pyFacts{outcome: pyOK, TorchSites: map[string]string{"pytorch_version": "ImportError"}},
			"null", []string{"pytorch_version: torch not importable"}},
		{"raised", &pyFacts{outcome: pyOK, TorchSites: map[string]string{"pytorch_version": "OSError"}},
			"null", []string{"pytorch_version: torch import raised (OSError)"}},
		{"helper timed out", &pyFacts{outcome: pyTimeout},
			"null", []string{"pytorch_version: torch import raised (TimeoutExpired)"}},
	} {
		s := factsState(tc.f)
		if got := golden.OrNull(collectPytorchVersion(s)); got != tc.want || !slices.Equal(s.reasons, tc.reasons) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, got, s.reasons, tc.want, tc.reasons)
		}
	}
}
