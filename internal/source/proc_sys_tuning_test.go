package source

// The samples are the real formats tuning.md quotes (procfs's fixtures,
// the kernel's show() functions, AMD's documented output).

import (
	"strings"
	"testing"
)

func TestParseSysctlInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{{"0\n", 0, true}, {"1", 1, true}, {"3\n", 3, true}, {"", 0, false}, {"1 2", 0, false}, {"x", 0, false}, {"-1", -1, true}} {
		if n, ok := ParseSysctlInt(tc.in); n != tc.want || ok != tc.ok {
			t.Errorf("ParseSysctlInt(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.want, tc.ok)
		}
	}
}

func TestKernelVersionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		in     string
		at, ok bool
	}{{"6.8.0-40-generic", true, true}, {"5.18.0", true, true}, {"5.14.0-427.el9.x86_64", false, true}, {"4.19", false, true}, {"garbage", false, false}, {"6.x", false, false}} {
		if at, ok := KernelVersionAtLeast(tc.in, 5, 18); at != tc.at || ok != tc.ok {
			t.Errorf("KernelVersionAtLeast(%q) = %v, %v", tc.in, at, ok)
		}
	}
}

// FuzzParseSysctlInt: no input makes a parser panic or answer ok with a
// value outside its format.
func FuzzParseSysctlInt(f *testing.F) {
	f.Add("0\n")
	f.Add("6.8.0-40-generic")
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := ParseSysctlInt(s); ok && strings.TrimSpace(s) == "" {
			t.Fatal(n)
		}
		KernelVersionAtLeast(s, 5, 18)
	})
}
