package source

// The samples are the real formats tuning.md quotes (procfs's fixtures,
// the kernel's show() functions, AMD's documented output).

import (
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		ok   bool
		last int
	}{
		{"0-255\n", 256, true, 255}, {"0,2-3", 3, true, 3}, {"", 0, true, -1}, {"0-15", 16, true, 15},
		{"3-1", 0, false, 0}, {"a", 0, false, 0}, {"0-8192", 0, false, 0}, {"-1", 0, false, 0}, {"0,,1", 0, false, 0},
	} {
		l, ok := ParseCPUList(tc.in)
		if ok != tc.ok || len(l) != tc.n || (ok && tc.n > 0 && l[len(l)-1] != tc.last) {
			t.Errorf("ParseCPUList(%q) = %v, %v", tc.in, l, ok)
		}
	}
}

// FuzzParseCPUList: no input makes a parser panic or answer ok with a
// value outside its format.
func FuzzParseCPUList(f *testing.F) {
	f.Add("0-255")
	f.Add("0,2-3")
	f.Fuzz(func(t *testing.T, s string) {
		if l, ok := ParseCPUList(s); ok && len(l) > CPUListMax {
			t.Fatal(len(l))
		}
	})
}
