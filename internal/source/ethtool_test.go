package source

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyfmt"
)

func TestEthtoolField(t *testing.T) {
	for _, tc := range []struct {
		name, in, field string
		want            *string
	}{
		{"version", ethtoolBroadcom, "version", strp("6.9.0-0_fbk10_brcmrdma13_141_g9")},
		{"firmware", ethtoolBroadcom, "firmware-version", strp("232.0.219.16/pkg 232.1.196.16")},
		{"empty value", ethtoolBroadcom, "expansion-rom-version", nil},
		{"missing", ethtoolBroadcom, "supports-test", nil},
		{"not a prefix match of a longer key", "firmware-version: 1\n", "version", nil},
		{"indented line does not count", "  version: 1\nversion: 2\n", "version", strp("2")},
		{"first wins", "version: 1\nversion: 2\n", "version", strp("1")},
		{"colons in value", "bus-info: 0000:f3:00.0\n", "bus-info", strp("0000:f3:00.0")},
		{"no space", "version:x\n", "version", strp("x")},
		{"empty input", "", "version", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ethtoolField(tc.in, tc.field)
			if derefOr(got, "<nil>") != derefOr(tc.want, "<nil>") {
				t.Errorf("ethtoolField(%q) = %v, want %v", tc.field, derefOr(got, "<nil>"), derefOr(tc.want, "<nil>"))
			}
		})
	}
}

func TestSplitFirmware(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      *string
		fw, pkg string
	}{
		{"nil", nil, "<nil>", "<nil>"},
		{"broadcom", strp("232.0.219.16/pkg 232.1.196.16"), "232.0.219.16", "232.1.196.16"},
		{"cx7 passes through", strp("28.36.1010 (FB_0000000038)"), "28.36.1010 (FB_0000000038)", "<nil>"},
		{"pkg equal to firmware", strp("1.2/pkg 1.2"), "1.2", "<nil>"},
		{"empty left", strp("/pkg 9.9"), "<nil>", "9.9"},
		{"empty right", strp("1.0/pkg"), "1.0", "<nil>"},
		{"second /pkg stays right", strp("a/pkg b/pkg c"), "a", "b/pkg c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fw, pkg := SplitFirmware(tc.in)
			if derefOr(fw, "<nil>") != tc.fw || derefOr(pkg, "<nil>") != tc.pkg {
				t.Errorf("SplitFirmware = %v, %v, want %v, %v", derefOr(fw, "<nil>"), derefOr(pkg, "<nil>"), tc.fw, tc.pkg)
			}
		})
	}
}

func FuzzEthtool(f *testing.F) {
	f.Add(ethtoolBroadcom, "firmware-version")
	f.Add("version:\n", "version")
	f.Fuzz(func(t *testing.T, in, field string) {
		v := ethtoolField(in, field)
		if v != nil && (*v == "" || pyfmt.Strip(*v) != *v) {
			t.Fatalf("bad value %q", *v)
		}
		fw, pkg := SplitFirmware(v)
		if pkg != nil && fw != nil && *pkg == *fw {
			t.Fatalf("pkg equals firmware")
		}
	})
}

const ethtoolBroadcom = `driver: bnxt_en
version: 6.9.0-0_fbk10_brcmrdma13_141_g9
firmware-version: 232.0.219.16/pkg 232.1.196.16
expansion-rom-version: 
bus-info: 0000:f3:00.0
`

func TestParseEthtoolInfo(t *testing.T) {
	info := ParseEthtoolInfo(ethtoolBroadcom)
	got := strings.Join([]string{derefOr(info.Driver, "<nil>"), derefOr(info.Version, "<nil>"), derefOr(info.FirmwareVersion, "<nil>"), derefOr(info.BusInfo, "<nil>")}, "|")
	if want := "bnxt_en|6.9.0-0_fbk10_brcmrdma13_141_g9|232.0.219.16/pkg 232.1.196.16|0000:f3:00.0"; got != want {
		t.Errorf("ParseEthtoolInfo = %s, want %s", got, want)
	}
	if info := ParseEthtoolInfo(""); info != (EthtoolInfo{}) {
		t.Errorf("empty output: %+v", info)
	}
}
