package source

// The samples are the real formats tuning.md quotes (procfs's fixtures,
// the kernel's show() functions, AMD's documented output).

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCmdline(t *testing.T) {
	// procfs's real sample, then AMD's expected MI3xx sample (SA-HC).
	c := ParseCmdline("BOOT_IMAGE=/vmlinuz-5.11.0-22-generic root=UUID=456a0345-450d-4f7b-b7c9-43e3241d99ad ro quiet splash vt.handoff=7\n")
	if len(c) != 6 || !c.Has("quiet") || c.Has("iommu=pt") {
		t.Errorf("procfs sample: %q", c)
	}
	c = ParseCmdline("BOOT_IMAGE=/boot/vmlinuz-6.8.0-40-generic ro pci=realloc=off pci=bfsort iommu=pt numa_balancing=disable modprobe.blacklist=amdgpu")
	if got := c.Options("pci"); !reflect.DeepEqual(got, []string{"realloc=off", "bfsort"}) {
		t.Errorf("pci options %q", got)
	}
	if v, ok := c.Value("iommu"); v != "pt" || !ok {
		t.Errorf("iommu = %q, %v", v, ok)
	}
	if got := c.Options("modprobe.blacklist"); !reflect.DeepEqual(got, []string{"amdgpu"}) {
		t.Errorf("blacklist %q", got)
	}
	c = ParseCmdline(`a="x y" pci=realloc=off,bfsort  iommu=off iommu=pt`)
	if !reflect.DeepEqual([]string(c), []string{`a="x y"`, "pci=realloc=off,bfsort", "iommu=off", "iommu=pt"}) {
		t.Errorf("quoted: %q", c)
	}
	if v, _ := c.Value("iommu"); v != "pt" {
		t.Errorf("last iommu wins: %q", v)
	}
	if len(ParseCmdline("")) != 0 || len(ParseCmdline(" \n")) != 0 {
		t.Error("empty line has tokens")
	}
}

// FuzzParseCmdline: no input makes a parser panic or answer ok with a
// value outside its format.
func FuzzParseCmdline(f *testing.F) {
	f.Add("BOOT_IMAGE=/vmlinuz ro pci=realloc=off,bfsort iommu=pt")
	f.Add(`a="x y" b`)
	f.Fuzz(func(t *testing.T, s string) {
		c := ParseCmdline(s)
		for _, tok := range c {
			if tok == "" || (strings.ContainsAny(tok, " \t\n") && !strings.Contains(tok, `"`)) {
				t.Fatalf("token %q", tok)
			}
		}
		c.Options("pci")
		c.Value("iommu")
	})
}
