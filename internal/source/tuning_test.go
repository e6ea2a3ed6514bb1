package source

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

// The samples below are the real formats tuning.md quotes (procfs's
// fixtures, the kernel's show() functions, AMD's documented output).

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

func TestParseDPMLevels(t *testing.T) {
	procfs := "0: 852Mhz *\n1: 991Mhz \n2: 1084Mhz \n3: 1138Mhz \n4: 1200Mhz \n5: 1401Mhz \n6: 1536Mhz \n7: 1630Mhz \n"
	for _, tc := range []struct {
		name, in string
		lo, hi   int64
		active   string
		ok       bool
	}{
		{"procfs vega10", procfs, 852, 1630, "0", true},
		{"mi300 two levels", "0: 500Mhz \n1: 2100Mhz *\n", 500, 2100, "1", true},
		{"mi300 between", "0: 500Mhz\n1: 1420Mhz *\n2: 2100Mhz\n", 500, 2100, "1", true},
		{"mi300 deep sleep", "S: 19Mhz *\n0: 500Mhz\n1: 2100Mhz\n", 500, 2100, "S", true},
		{"unavailable", "unavailable\n", 0, 0, "", false},
		{"empty", "", 0, 0, "", false},
		{"bad unit", "0: 500GHz\n", 0, 0, "", false},
		{"bad label", "x: 500Mhz\n", 0, 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, ok := ParseDPMLevels(tc.in)
			if ok != tc.ok {
				t.Fatalf("ok = %v, %v", ok, l)
			}
			if !ok {
				return
			}
			lo, hi, _ := DPMRange(l)
			active := ""
			for _, x := range l {
				if x.Active {
					active = x.Label
				}
			}
			if lo != tc.lo || hi != tc.hi || active != tc.active {
				t.Errorf("range %d-%d active %q", lo, hi, active)
			}
		})
	}
	if _, _, ok := DPMRange([]DPMLevel{{Label: "S", MHz: 5}}); ok {
		t.Error("a deep-sleep line alone is a range")
	}
}

func TestParseAMDGPUSettings(t *testing.T) {
	if v, ok := ParsePMPolicy("0 : soc_pstate_default\n1 : soc_pstate_0\n2 : soc_pstate_1*\n3 : soc_pstate_2\n"); v != "soc_pstate_1" || !ok {
		t.Errorf("soc_pstate %q %v", v, ok)
	}
	if v, ok := ParsePMPolicy("0 : plpd_disallow\n1 : plpd_default\n2 : plpd_optimized*\n"); v != "plpd_optimized" || !ok {
		t.Errorf("xgmi_plpd %q %v", v, ok)
	}
	for _, bad := range []string{"", "0 : a\n1 : b\n", "0 : a*\n1 : b*", "nonsense"} {
		if _, ok := ParsePMPolicy(bad); ok {
			t.Errorf("ParsePMPolicy(%q) ok", bad)
		}
	}
	pp := "Current ppfeatures: 0x0000000019a1ff4f\nFEATURES            BITMASK                ENABLEMENT\nGFXCLK_DPM          0x0000000000000002      Y\nPPT                 0x0000000000004000      Y\nFAN_CONTROL         0x0000000002000000      N\n"
	if v, ok := ParsePPFeatures(pp); v != "0x0000000019a1ff4f" || !ok {
		t.Errorf("pp_features %q %v", v, ok)
	}
	for _, bad := range []string{"", "Current ppfeatures: nothing", "FEATURES BITMASK", "Current ppfeatures: 0xzz"} {
		if _, ok := ParsePPFeatures(bad); ok {
			t.Errorf("ParsePPFeatures(%q) ok", bad)
		}
	}
	if v, ok := ParseRASFeatures("feature mask: 0x3ff\n"); v != "0x3ff" || !ok {
		t.Errorf("ras features %q %v", v, ok)
	}
	if _, ok := ParseRASFeatures("mask 0x3ff"); ok {
		t.Error("ras features without its label")
	}
	on, iv, ok := ParseThermalThrottlingLogging("0000:09:00.0: thermal throttling logging enabled, with interval 60 seconds\n")
	if !on || iv != 60 || !ok {
		t.Errorf("thermal logging %v %d %v", on, iv, ok)
	}
	if on, _, ok := ParseThermalThrottlingLogging("0000:09:00.0: thermal throttling logging disabled"); on || !ok {
		t.Error("disabled")
	}
	if _, _, ok := ParseThermalThrottlingLogging("enabled"); ok {
		t.Error("bare word ok")
	}
}

func TestParseAMDGPUState(t *testing.T) {
	if m, ok := ParseRASCount("ue: 0\nce: 1\n"); !ok || m["ue"] != 0 || m["ce"] != 1 {
		t.Errorf("ras count %v %v", m, ok)
	}
	if m, ok := ParseRASCount("ue: 0\nce: 0\nde: 2\n"); !ok || m["de"] != 2 {
		t.Errorf("ras count with de %v", m)
	}
	if _, ok := ParseRASCount("Query currently inaccessible\n"); ok {
		t.Error("inaccessible parsed")
	}
	if n, ok := ParseBadPages("0x00000001 : 0x00001000 : R\n0x00000002 : 0x00001000 : P\n"); n != 2 || !ok {
		t.Errorf("bad pages %d", n)
	}
	if n, ok := ParseBadPages(""); n != 0 || !ok {
		t.Error("empty bad pages")
	}
	if _, ok := ParseBadPages("garbage"); ok {
		t.Error("garbage bad pages")
	}
	cor := "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 3\n"
	if n, ok := ParseAERTotal(cor); n != 3 || !ok {
		t.Errorf("aer %d %v", n, ok)
	}
	if n, ok := ParseAERTotal("Receiver Error 2\nTOTAL_ERR_FATAL 0\n"); n != 0 || !ok {
		t.Error("long names")
	}
	if _, ok := ParseAERTotal("RxErr 0\n"); ok {
		t.Error("no total")
	}
}

func TestTuningReaders(t *testing.T) {
	f := fakeFS(t, `
-- proc/sys/kernel/numa_balancing --
1
-- proc/sys/kernel/osrelease --
6.8.0-40-generic
-- proc/sys/vm/compaction_proactiveness --
20
-- proc/meminfo --
MemTotal:       2113638400 kB
-- sys/devices/system/cpu/online --
0-3
-- sys/devices/system/cpu/smt/control --
on
-- sys/devices/system/cpu/smt/active --
1
-- sys/devices/system/cpu/cpu0/cpuidle/state0/name --
POLL
-- sys/devices/system/cpu/cpu0/cpuidle/state1/name --
C1
-- sys/devices/system/cpu/cpu0/cpuidle/state2/name --
C2
-- sys/devices/system/cpu/cpu1/cpuidle/state2/disable --
1
-- sys/devices/system/cpu/cpu0/topology/package_cpus_list --
0-1
-- sys/devices/system/node/node0/cpulist --
0-1
-- sys/devices/system/node/node1/cpulist --
2-3
-- sys/devices/system/node/node2/cpulist --

-- sys/devices/system/node/online --
0-2
-- sys/kernel/mm/transparent_hugepage/enabled --
always [madvise] never
-- sys/module/pcie_aspm/parameters/policy --
[default] performance powersave powersupersave 
-- sys/module/amdgpu/initstate --
live
-- sys/kernel/iommu_groups/11/type --
DMA-FQ
-- sys/kernel/iommu_groups/12/type --
identity
-- sys/firmware/acpi/tables/IVRS [mode 0400] --
-- sys/bus/pci/devices/0000:0a:00.0/iommu_group -> ../../../../kernel/iommu_groups/11 --
-- sys/bus/pci/devices/0000:0a:00.0/hwmon/hwmon3/power1_cap --
750000000
`)
	if n, err := f.NUMABalancing(); n != 1 || err != nil {
		t.Errorf("numa_balancing %d %v", n, err)
	}
	if _, err := f.CompactUnevictableAllowed(); !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrRead) {
		t.Errorf("missing sysctl: %v", err)
	}
	if r, err := f.KernelRelease(); r != "6.8.0-40-generic" || err != nil {
		t.Errorf("osrelease %q %v", r, err)
	}
	if n, err := f.MemTotal(); n != 2113638400*1024 || err != nil {
		t.Errorf("memtotal %d %v", n, err)
	}
	if l, err := f.CPUs("online"); len(l) != 4 || err != nil {
		t.Errorf("online %v %v", l, err)
	}
	if c, err := f.SMTControl(); c != "on" || err != nil {
		t.Errorf("smt %q %v", c, err)
	}
	if k, err := f.CPUIdleState(0, "C2"); k != 2 || err != nil {
		t.Errorf("C2 index %d %v", k, err)
	}
	if k, err := f.CPUIdleState(0, "C9"); k != -1 || err != nil {
		t.Errorf("no C9: %d %v", k, err)
	}
	if d, err := f.CPUIdleDisabled(1, 2); !d || err != nil {
		t.Errorf("disable %v %v", d, err)
	}
	if l, err := f.PackageCPUs(0); len(l) != 2 || err != nil {
		t.Errorf("package %v %v", l, err)
	}
	if n, err := f.NUMANodes(); len(n) != 3 || n[2].CPUs != 0 || n[1].CPUs != 2 || err != nil {
		t.Errorf("nodes %v %v", n, err)
	}
	if w, err := f.THPEnabled(); w != "madvise" || err != nil {
		t.Errorf("thp %q %v", w, err)
	}
	if w, err := f.PCIeASPMPolicy(); w != "default" || err != nil {
		t.Errorf("aspm %q %v", w, err)
	}
	if s, err := f.ModuleInitstate("amdgpu"); s != "live" || err != nil {
		t.Errorf("initstate %q %v", s, err)
	}
	if _, err := f.ModuleParam("../etc", "x"); !errors.Is(err, ErrName) {
		t.Errorf("module name with a slash: %v", err)
	}
	if n, err := f.IOMMUGroups(); n != 2 || err != nil {
		t.Errorf("groups %d %v", n, err)
	}
	typ, group, err := f.DeviceIOMMUGroupType("/sys/bus/pci/devices/0000:0a:00.0")
	if typ != "DMA-FQ" || group != "/sys/kernel/iommu_groups/11/type" || err != nil {
		t.Errorf("group type %q %q %v", typ, group, err)
	}
	if ok, err := f.ACPITable("IVRS"); !ok || err != nil {
		t.Errorf("IVRS %v %v", ok, err)
	}
	if ok, err := f.ACPITable("DMAR"); ok || err != nil {
		t.Errorf("DMAR %v %v", ok, err)
	}
	h, err := f.AMDGPUHwmon("/sys/bus/pci/devices/0000:0a:00.0")
	if h != "/sys/bus/pci/devices/0000:0a:00.0/hwmon/hwmon3" || err != nil {
		t.Fatalf("hwmon %q %v", h, err)
	}
	if n, err := f.AttrInt(h + "/power1_cap"); n != 750000000 || err != nil {
		t.Errorf("power1_cap %d %v", n, err)
	}
}

// FuzzTuningParsers: no input makes a parser panic or answer ok with a
// value outside its format.
func FuzzTuningParsers(f *testing.F) {
	for _, s := range []string{
		"0\n", "BOOT_IMAGE=/vmlinuz ro pci=realloc=off,bfsort iommu=pt", "MemTotal: 1 kB", "0-255", "always [madvise] never",
		"0: 852Mhz *\n1: 991Mhz \n", "S: 19Mhz *\n0: 500Mhz\n", "0 : soc_pstate_default\n1 : soc_pstate_0*\n",
		"Current ppfeatures: 0x0000000019a1ff4f\n", "feature mask: 0x3ff", "ue: 0\nce: 1\n",
		"x: thermal throttling logging enabled, with interval 60 seconds", "TOTAL_ERR_COR 0", "0x1 : 0x1000 : R",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ParseSysctlInt(s)
		KernelVersionAtLeast(s, 5, 18)
		c := ParseCmdline(s)
		for _, tok := range c {
			if tok == "" || (strings.ContainsAny(tok, " \t\n") && !strings.Contains(tok, `"`)) {
				t.Fatalf("token %q", tok)
			}
		}
		c.Options("pci")
		if n, ok := ParseMemTotal(s); ok && n < 0 {
			t.Fatal(n)
		}
		if l, ok := ParseCPUList(s); ok && len(l) > CPUListMax {
			t.Fatal(len(l))
		}
		if w, ok := ParseBracketed(s); ok && (w == "" || strings.ContainsAny(w, " \n")) {
			t.Fatalf("choice %q", w)
		}
		if l, ok := ParseDPMLevels(s); ok {
			if lo, hi, r := DPMRange(l); r && (lo < 0 || hi < 0) {
				t.Fatal(lo, hi)
			}
		}
		ParsePMPolicy(s)
		if v, ok := ParsePPFeatures(s); ok && !strings.HasPrefix(v, "0x") {
			t.Fatal(v)
		}
		if v, ok := ParseRASFeatures(s); ok && !strings.HasPrefix(v, "0x") {
			t.Fatal(v)
		}
		ParseThermalThrottlingLogging(s)
		ParseRASCount(s)
		ParseBadPages(s)
		if n, ok := ParseAERTotal(s); ok && n < 0 {
			t.Fatal(n)
		}
	})
}
