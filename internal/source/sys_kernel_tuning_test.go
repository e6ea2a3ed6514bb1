package source

// The samples are the real formats tuning.md quotes (procfs's fixtures,
// the kernel's show() functions, AMD's documented output).

import (
	"strings"
	"testing"
)

func TestParseBracketed(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[always] madvise never\n", "always"},
		{"always [madvise] never", "madvise"},
		{"[default] performance powersave powersupersave ", "default"},
		{"always madvise never", ""},
		{"[a] [b]", ""},
		{"[]", ""},
	} {
		if w, ok := ParseBracketed(tc.in); w != tc.want || ok != (tc.want != "") {
			t.Errorf("ParseBracketed(%q) = %q, %v", tc.in, w, ok)
		}
	}
}

// FuzzParseBracketed: no input makes a parser panic or answer ok with a
// value outside its format.
func FuzzParseBracketed(f *testing.F) {
	f.Add("always [madvise] never")
	f.Add("[default] performance ")
	f.Fuzz(func(t *testing.T, s string) {
		if w, ok := ParseBracketed(s); ok && (w == "" || strings.ContainsAny(w, " \n")) {
			t.Fatalf("choice %q", w)
		}
	})
}
