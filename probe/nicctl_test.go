package probe

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
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
			if got := derefOr(parseNicctlVersion(in), "<nil>"); got != want {
				t.Errorf("parseNicctlVersion(%q) = %q, want %q", in, got, want)
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
			if got := derefOr(parseVersionOutput(in), "<nil>"); got != want {
				t.Errorf("parseVersionOutput(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("card", func(t *testing.T) {
		c := parseCardDetail("Id : 42424650-4c32-3533-3530-314130000000\nASIC : Salina\n  Firmware version   : 1.117.5-a-56\n")
		if derefOr(c.uuid, "") != "42424650-4c32-3533-3530-314130000000" || derefOr(c.asic, "") != "SALINA" || derefOr(c.firmware, "") != "1.117.5-a-56" {
			t.Errorf("parseCardDetail = %v %v %v", derefOr(c.uuid, "<nil>"), derefOr(c.asic, "<nil>"), derefOr(c.firmware, "<nil>"))
		}
		c = parseCardDetail("uuid x42424650-4c32-3533-3530-314130000000\nasic: salinas\nFW = v1\nfw-rev=2a\n")
		if c.uuid != nil || c.asic != nil || derefOr(c.firmware, "") != "2a" {
			t.Errorf("word boundaries: %v %v %v", derefOr(c.uuid, "<nil>"), derefOr(c.asic, "<nil>"), derefOr(c.firmware, "<nil>"))
		}
		if c := parseCardDetail("fw: 7\n"); c.firmware != nil {
			t.Errorf("a one-character version must not match: %v", *c.firmware)
		}
	})
	t.Run("profile", func(t *testing.T) {
		p := parseCardProfile("Profile : device_config_8x50g_vf\n")
		if derefOr(p.DeviceConfig, "") != "device_config_8x50g_vf" || p.SRIOV == nil || !*p.SRIOV {
			t.Errorf("parseCardProfile vf = %s", pyjson.Encode(p))
		}
		p = parseCardProfile("no profile\n")
		if p.DeviceConfig != nil || p.SRIOV != nil {
			t.Errorf("parseCardProfile none = %s", pyjson.Encode(p))
		}
	})
	t.Run("dcqcn", func(t *testing.T) {
		got := string(pyjson.Encode(parseDCQCN("dcqcn-profile 1\n  enabled true\n  token-bucket-size 800000\n  ai-rate 160\n  hai-rate 300\n  cnp-dscp 48\n")))
		want := "{\n  \"enabled\": true,\n  \"token_bucket_size\": 800000,\n  \"ai_rate\": 160,\n  \"hai_rate\": 300,\n  \"cnp_dscp\": 48\n}"
		if got != want {
			t.Errorf("parseDCQCN = %s", got)
		}
		d := parseDCQCN("Enabled: 0\nAI-Rate = 5\nhai-rate: x\ncnp-dscp 99999999999999999999999\n")
		if d.Enabled == nil || *d.Enabled || d.AIRate == nil || *d.AIRate != 5 || d.HAIRate != nil || d.CNPDSCP != nil || d.TokenBucketSize != nil {
			t.Errorf("parseDCQCN odd = %s", pyjson.Encode(d))
		}
	})
}

func FuzzNicctl(f *testing.F) {
	f.Add(`{"firmware": {"version": "1.117.5-a-56"}}`)
	f.Add("Id : 42424650-4c32-3533-3530-314130000000\nASIC : salina\nFirmware: 1.2\n  enabled true\n cnp-dscp 48\n")
	f.Fuzz(func(t *testing.T, in string) {
		_ = parseNicctlVersion(in)
		if v := parseVersionOutput(in); v != nil && !versionRe().MatchString(*v) {
			t.Fatalf("version %q does not look like one", *v)
		}
		c := parseCardDetail(in)
		if c.asic != nil && strings.ToUpper(*c.asic) != *c.asic {
			t.Fatalf("asic not upper-cased")
		}
		p := parseCardProfile(in)
		if (p.DeviceConfig == nil) != (p.SRIOV == nil) {
			t.Fatalf("profile half set")
		}
		_ = parseDCQCN(in)
	})
}
