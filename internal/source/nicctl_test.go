package source

import (
	"strconv"
	"strings"
	"testing"
)

func TestNicctlParsers(t *testing.T) {
	t.Run("version", func(t *testing.T) {
		for in, want := range map[string]string{
			"1.117.5-a-74":                "1.117.5-a-74",
			"nicctl version 1.117.5-a-74": "1.117.5-a-74",
			"nicctl (build unknown)":      "nicctl (build unknown)",
			"v1.2.3_rc1.4 extra":          "1.2.3_rc1",
			"":                            "<nil>",
		} {
			if got := derefOr(ParseNicctlVersion(in), "<nil>"); got != want {
				t.Errorf("ParseNicctlVersion(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("version output", func(t *testing.T) {
		for in, want := range map[string]string{
			`{"firmware": {"version": "1.117.5-a-56"}}`:                          "1.117.5-a-56",
			`{"id": "42424650-4c32", "list": [{"v": "x"}, {"v": "2.0.0.rc-1"}]}`: "2.0.0.rc-1",
			`{"a": "1.1.1", "b": "2.2.2"}`:                                       "1.1.1",
			`{"n": 1.2, "s": "3.4.5"}`:                                           "3.4.5",
			"Firmware version 1.1.1-salinaainicbase-1":                           "1.1.1-salinaainicbase-1",
			`{"broken": "1.2.3"`:                                                 "1.2.3",
			`{"none": "x"} 9.9.9`:                                                "9.9.9",
			`{"none": "x"}`:                                                      "<nil>",
			"":                                                                   "<nil>",
		} {
			if got := derefOr(ParseNicctlShowVersion(in), "<nil>"); got != want {
				t.Errorf("ParseNicctlShowVersion(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("card", func(t *testing.T) {
		c := ParseCardDetail("Id : 42424650-4c32-3533-3530-314130000000\nASIC : Salina\n  Firmware version   : 1.117.5-a-56\n")
		if derefOr(c.UUID, "") != "42424650-4c32-3533-3530-314130000000" || derefOr(c.ASIC, "") != "SALINA" || derefOr(c.Firmware, "") != "1.117.5-a-56" {
			t.Errorf("ParseCardDetail = %v %v %v", derefOr(c.UUID, "<nil>"), derefOr(c.ASIC, "<nil>"), derefOr(c.Firmware, "<nil>"))
		}
		c = ParseCardDetail("uuid x42424650-4c32-3533-3530-314130000000\nasic: salinas\nFW = v1\nfw-rev=2a\n")
		if c.UUID != nil || c.ASIC != nil || derefOr(c.Firmware, "") != "2a" {
			t.Errorf("word boundaries: %v %v %v", derefOr(c.UUID, "<nil>"), derefOr(c.ASIC, "<nil>"), derefOr(c.Firmware, "<nil>"))
		}
		if c := ParseCardDetail("fw: 7\n"); c.Firmware != nil {
			t.Errorf("a one-character version must not match: %v", *c.Firmware)
		}
	})
	t.Run("profile", func(t *testing.T) {
		p := ParseCardProfile("Profile : device_config_8x50g_vf\n")
		if derefOr(p.DeviceConfig, "") != "device_config_8x50g_vf" || p.SRIOV == nil || !*p.SRIOV {
			t.Errorf("ParseCardProfile vf = %q, %v", derefOr(p.DeviceConfig, "<nil>"), p.SRIOV)
		}
		p = ParseCardProfile("no profile\n")
		if p.DeviceConfig != nil || p.SRIOV != nil {
			t.Errorf("ParseCardProfile none = %q, %v", derefOr(p.DeviceConfig, "<nil>"), p.SRIOV)
		}
	})
	t.Run("dcqcn", func(t *testing.T) {
		got := dcqcnText(ParseDCQCN("dcqcn-profile 1\n  enabled true\n  token-bucket-size 800000\n  ai-rate 160\n  hai-rate 300\n  cnp-dscp 48\n"))
		want := "enabled=true token_bucket_size=800000 ai_rate=160 hai_rate=300 cnp_dscp=48"
		if got != want {
			t.Errorf("ParseDCQCN = %s", got)
		}
		d := ParseDCQCN("Enabled: 0\nAI-Rate = 5\nhai-rate: x\ncnp-dscp 99999999999999999999999\n")
		if d.Enabled == nil || *d.Enabled || d.AIRate == nil || *d.AIRate != 5 || d.HAIRate != nil || d.CNPDSCP != nil || d.TokenBucketSize != nil {
			t.Errorf("ParseDCQCN odd = %s", dcqcnText(d))
		}
	})
}

// dcqcnText is d as "key=value …", nil values as "null".
func dcqcnText(d DCQCN) string {
	num := func(p *int) string {
		if p == nil {
			return "null"
		}
		return strconv.Itoa(*p)
	}
	en := "null"
	if d.Enabled != nil {
		en = strconv.FormatBool(*d.Enabled)
	}
	return "enabled=" + en + " token_bucket_size=" + num(d.TokenBucketSize) + " ai_rate=" + num(d.AIRate) +
		" hai_rate=" + num(d.HAIRate) + " cnp_dscp=" + num(d.CNPDSCP)
}

func FuzzNicctl(f *testing.F) {
	f.Add(`{"firmware": {"version": "1.117.5-a-56"}}`)
	f.Add("Id : 42424650-4c32-3533-3530-314130000000\nASIC : salina\nFirmware: 1.2\n  enabled true\n cnp-dscp 48\n")
	f.Fuzz(func(t *testing.T, in string) {
		_ = ParseNicctlVersion(in)
		if v := ParseNicctlShowVersion(in); v != nil && !versionRe().MatchString(*v) {
			t.Fatalf("version %q does not look like one", *v)
		}
		c := ParseCardDetail(in)
		if c.ASIC != nil && strings.ToUpper(*c.ASIC) != *c.ASIC {
			t.Fatalf("asic not upper-cased")
		}
		p := ParseCardProfile(in)
		if (p.DeviceConfig == nil) != (p.SRIOV == nil) {
			t.Fatalf("profile half set")
		}
		_ = ParseDCQCN(in)
	})
}
