package pyfmt

import (
	"slices"
	"testing"
)

// TestLower: the simple lower case of each code point; a byte that is not
// UTF-8 is kept, not turned into U+FFFD.
func TestLower(t *testing.T) {
	for in, want := range map[string]string{
		"ABC.SO": "abc.so", "ÀÉ": "àé", "A\xffB": "a\xffb", "": "", "\xc3": "\xc3",
	} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLess: code point order; a byte that is not UTF-8 stands for
// U+DC00+byte, which sorts it before U+E000 although its byte is larger.
func TestLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"b", "a", false},
		{"a", "a", false},
		{"a", "ab", true},
		{"\xff", "\ue000", true},  // U+DCFF < U+E000, bytes ff > ee
		{"\ue000", "\xff", false}, //
		{"\xff", "é", false},      // U+DCFF > U+00E9
		{"a\xff", "a\xff0", true}, // a prefix first
		{"a\xff0", "a\xff", false},
		{"\xfe", "\xff", true},
	} {
		if got := Less(tc.a, tc.b); got != tc.want {
			t.Errorf("Less(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestSort: os.listdir names sorted as Python's sorted() sorts them.
func TestSort(t *testing.T) {
	ss := []string{"\ue000", "b", "\xff", "a", "é"}
	Sort(ss)
	if want := []string{"a", "b", "é", "\xff", "\ue000"}; !slices.Equal(ss, want) {
		t.Errorf("Sort: %q, want %q", ss, want)
	}
}
