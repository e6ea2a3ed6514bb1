package source

// The samples are the real formats tuning.md quotes (procfs's fixtures,
// the kernel's show() functions, AMD's documented output).

import (
	"strings"
	"testing"
)

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

// FuzzParseAMDGPUAttrs: no input makes a parser panic or answer ok with a
// value outside its format.
func FuzzParseAMDGPUAttrs(f *testing.F) {
	f.Add("0: 852Mhz *\n1: 991Mhz \n")
	f.Add("S: 19Mhz *\n0: 500Mhz\n")
	f.Add("0 : soc_pstate_default\n1 : soc_pstate_0*\n")
	f.Add("Current ppfeatures: 0x0000000019a1ff4f\n")
	f.Add("feature mask: 0x3ff")
	f.Add("ue: 0\nce: 1\n")
	f.Add("x: thermal throttling logging enabled, with interval 60 seconds")
	f.Add("TOTAL_ERR_COR 0")
	f.Add("0x1 : 0x1000 : R")
	f.Fuzz(func(t *testing.T, s string) {
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
