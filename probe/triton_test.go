package probe

import (
	"slices"
	"testing"

	"aorta-probe/internal/golden"
)

// TestCollectTriton: triton.__version__ when the helper imported triton,
// else null and the Python probe's reason; the commit from the version's
// local part when it names one.
func TestCollectTriton(t *testing.T) {
	v, sha := "3.4.0+git0123abcd", "0123abcd"
	for _, tc := range []struct {
		name            string
		f               *pyFacts
		version, commit string
		reasons         []string
	}{
		{"ok", &pyFacts{outcome: pyOK, Triton: &pyPackage{Outcome: "ok", Version: &v}}, v, sha, nil},
		{"no __version__", &pyFacts{outcome: pyOK, Triton: &pyPackage{Outcome: "ok"}},
			"null", "null", []string{"triton.package_version: triton lacks __version__ attribute"}},
		{"not importable", &pyFacts{outcome: pyOK}, "null", "null", []string{"triton.package_version: triton not importable"}},
		{"raised", &pyFacts{outcome: pyOK, Triton: &pyPackage{Outcome: "OSError"}},
			"null", "null", []string{"triton.package_version: triton import raised (OSError)"}},
		{"helper timed out", &pyFacts{outcome: pyTimeout},
			"null", "null", []string{"triton.package_version: triton import raised (TimeoutExpired)"}},
	} {
		s := factsState(tc.f)
		got := collectTriton(s)
		if golden.OrNull(got.PackageVersion) != tc.version || golden.OrNull(got.Commit) != tc.commit || !slices.Equal(s.reasons, tc.reasons) {
			t.Errorf("%s: %s %s %q, want %s %s %q", tc.name, golden.OrNull(got.PackageVersion), golden.OrNull(got.Commit), s.reasons,
				tc.version, tc.commit, tc.reasons)
		}
	}
}
