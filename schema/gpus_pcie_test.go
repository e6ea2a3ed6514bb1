package schema

import (
	"math"
	"testing"
)

// TestLinkSpeed: the speeds the kernel's PCI core writes (drivers/pci
// pci_speed_string: "2.5 GT/s PCIe" … "64.0 GT/s PCIe", older kernels
// without " PCIe"), "Unknown", and malformed text.
func TestLinkSpeed(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"2.5 GT/s PCIe", 2.5, true},
		{"32.0 GT/s PCIe", 32, true},
		{"8 GT/s", 8, true},
		{"Unknown", 0, false},
		{"", 0, false},
		{"16.0 MT/s PCIe", 0, false},
		{"x GT/s PCIe", 0, false},
		{"16.0GT/s", 0, false},
		// Whitespace as fields (a value read unstripped), and what no
		// kernel writes: zero, negative, not finite, above 10^6 GT/s.
		{"32.0 GT/s PCIe\n", 32, true},
		{" 8.0  GT/s ", 8, true},
		{"16.0", 0, false},
		{"16.0 Gb/s", 0, false},
		{"16.0 GT/sPCIe", 0, false},
		{"NaN GT/s", 0, false},
		{"Inf GT/s", 0, false},
		{"-8 GT/s", 0, false},
		{"0 GT/s", 0, false},
		{"1e400 GT/s", 0, false},
		{"2e6 GT/s", 0, false},
	} {
		got, ok := LinkSpeed(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("LinkSpeed(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestBelowMax: a slower speed or a narrower width is below the maximum;
// an unknown half decides nothing.
func TestBelowMax(t *testing.T) {
	for _, c := range []struct {
		p    GPUPCIe
		want bool
	}{
		{GPUPCIe{Str("32.0 GT/s PCIe"), Int(16), Str("32.0 GT/s PCIe"), Int(16)}, false},
		{GPUPCIe{Str("16.0 GT/s PCIe"), Int(16), Str("32.0 GT/s PCIe"), Int(16)}, true},
		{GPUPCIe{Str("32.0 GT/s PCIe"), Int(8), Str("32.0 GT/s PCIe"), Int(16)}, true},
		{GPUPCIe{Str("Unknown"), nil, Str("32.0 GT/s PCIe"), Int(16)}, false},
		{GPUPCIe{}, false},
	} {
		if got := c.p.BelowMax(); got != c.want {
			t.Errorf("%+v: BelowMax %v, want %v", c.p, got, c.want)
		}
	}
}

// FuzzLinkSpeed: any text gives a number in (0, 10^6] or false.
func FuzzLinkSpeed(f *testing.F) {
	for _, s := range []string{"32.0 GT/s PCIe", "2.5 GT/s", "Unknown", "1e400 GT/s", "NaN GT/s", "0x10 GT/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := LinkSpeed(s); ok && (math.IsInf(v, 0) || math.IsNaN(v) || !(v > 0 && v <= 1e6)) {
			t.Errorf("LinkSpeed(%q) = %v", s, v)
		}
	})
}
