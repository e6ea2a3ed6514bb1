package source

// The samples are the real formats tuning.md quotes (procfs's fixtures,
// the kernel's show() functions, AMD's documented output).

import (
	"testing"
)

func TestParseMemTotal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"MemTotal:       15666184 kB\nMemFree:          440712 kB\n", 15666184 * 1024, true},
		{"MemFree: 1 kB\n", 0, false},
		{"MemTotal: 12 MB\n", 0, false},
		{"MemTotal: x kB\n", 0, false},
		{"MemTotal: 99999999999999999 kB\n", 0, false},
		{"", 0, false},
	} {
		if n, ok := ParseMemTotal(tc.in); n != tc.want || ok != tc.ok {
			t.Errorf("ParseMemTotal(%q) = %d, %v", tc.in, n, ok)
		}
	}
}

// FuzzParseMemTotal: no input makes a parser panic or answer ok with a
// value outside its format.
func FuzzParseMemTotal(f *testing.F) {
	f.Add("MemTotal: 1 kB")
	f.Add("MemTotal:       15666184 kB\n")
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := ParseMemTotal(s); ok && n < 0 {
			t.Fatal(n)
		}
	})
}
