package probe

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// Table tests and fuzz targets for the pure parsers of the command-driven
// hardware blocks (hip, gpu_arch, nics, system_health).

func strp(s string) *string { return &s }

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func TestParseAgentEnumerator(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"cpu only", "gfx000\n", nil},
		{"mi300 x4", "gfx942\ngfx942\ngfx942\ngfx942\n", []string{"gfx942", "gfx942", "gfx942", "gfx942"}},
		{"placeholder and blanks", "gfx000\n\n  gfx942  \r\ngfx942", []string{"gfx942", "gfx942"}},
		{"no gfx validation", "warning: slow\ngfx950\n", []string{"warning: slow", "gfx950"}},
		{"gfx000 only exact", "gfx0000\n", []string{"gfx0000"}},
		{"unicode whitespace", "\u00a0gfx950\u2003\n\x1c", []string{"gfx950"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseAgentEnumerator(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseAgentEnumerator(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestGPUArchOf(t *testing.T) {
	g := gpuArchOf([]string{"gfx942", "gfx1100", "gfx942"})
	got := string(pyjson.Encode(g))
	want := "{\n  \"agent_count\": 3,\n  \"gfx_targets\": [\n    \"gfx1100\",\n    \"gfx942\"\n  ],\n  \"agent_arch_counts\": {\n    \"gfx1100\": 1,\n    \"gfx942\": 2\n  }\n}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func FuzzParseAgentEnumerator(f *testing.F) {
	f.Add("gfx000\ngfx942\ngfx942\n")
	f.Add("\r\n\x85gfx950\u2028")
	f.Fuzz(func(t *testing.T, in string) {
		targets := parseAgentEnumerator(in)
		for _, tg := range targets {
			if tg == "" || tg == "gfx000" || pyfmt.Strip(tg) != tg {
				t.Fatalf("bad target %q", tg)
			}
		}
		if len(targets) > 0 {
			g := gpuArchOf(targets)
			if *g.AgentCount != len(targets) || len(g.GfxTargets) != len(g.AgentArchCounts) {
				t.Fatalf("inconsistent %+v", g)
			}
		}
	})
}

func TestStderrTails(t *testing.T) {
	long := strings.Repeat("é", 250)
	for _, tc := range []struct {
		name, in       string
		nonBlank, last string
		lastOK         bool
	}{
		{"empty", "", "", "", false},
		{"blank lines", "  \n\t\n", "", "", false},
		{"one line", "sudo: a password is required\n", "sudo: a password is required", "sudo: a password is required", true},
		{"trailing blank", "first\n  second  \n\n", "second", "  second", true},
		{"last line indented", "a\n   cannot open /dev/kfd   \n", "cannot open /dev/kfd", "   cannot open /dev/kfd", true},
		{"crlf", "x\r\ny\r\n", "y", "y", true},
		{"200 code points", long, strings.Repeat("é", 200), strings.Repeat("é", 200), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastNonBlankLine(tc.in); got != tc.nonBlank {
				t.Errorf("lastNonBlankLine = %q, want %q", got, tc.nonBlank)
			}
			got, ok := lastLineOfStripped(tc.in)
			if got != tc.last || ok != tc.lastOK {
				t.Errorf("lastLineOfStripped = %q, %v, want %q, %v", got, ok, tc.last, tc.lastOK)
			}
		})
	}
}

func FuzzStderrTails(f *testing.F) {
	f.Add("a\n  b  \n\n")
	f.Add(strings.Repeat("\u2028x", 300))
	f.Fuzz(func(t *testing.T, in string) {
		in = toolText([]byte(in))
		a := lastNonBlankLine(in)
		b, _ := lastLineOfStripped(in)
		if utf8.RuneCountInString(a) > 200 || utf8.RuneCountInString(b) > 200 {
			t.Fatalf("tail longer than 200 code points")
		}
		if a != pyfmt.Strip(a) {
			t.Fatalf("non-blank tail not stripped: %q", a)
		}
	})
}

const ethtoolBroadcom = `driver: bnxt_en
version: 6.9.0-0_fbk10_brcmrdma13_141_g9
firmware-version: 232.0.219.16/pkg 232.1.196.16
expansion-rom-version: 
bus-info: 0000:f3:00.0
`

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
			fw, pkg := splitFirmware(tc.in)
			if derefOr(fw, "<nil>") != tc.fw || derefOr(pkg, "<nil>") != tc.pkg {
				t.Errorf("splitFirmware = %v, %v, want %v, %v", derefOr(fw, "<nil>"), derefOr(pkg, "<nil>"), tc.fw, tc.pkg)
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
		fw, pkg := splitFirmware(v)
		if pkg != nil && fw != nil && *pkg == *fw {
			t.Fatalf("pkg equals firmware")
		}
	})
}

func TestParseIBVDevices(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"broadcom", "    device                 node GUID\n    ------              ----------------\n    bnxt_re0            d604e6fffe3e3890\n    bnxt_re1            d604e6fffe3e4348\n", []string{"bnxt_re0", "bnxt_re1"}},
		{"empty", "", nil},
		{"header only", "    device          \n    ------              ----------------\n", nil},
		// Real ibv_devices separates its columns with a TAB, and the ruler
		// rule admits only '-' and ' ': the ruler's first token is kept, as
		// in the Python probe, and later dropped by the driver binding (no
		// /sys/class/infiniband/------).
		{"tab ruler", "    device          \t   node GUID\n    ------          \t----------------\n", []string{"------"}},
		{"name only", "rdma0\n", []string{"rdma0"}},
		{"devices prefix is a header", "devicex 1\nrdma1 2\n", []string{"rdma1"}},
		{"ruler with spaces", " - - - \n--\nx\n", []string{"x"}},
		{"tabs", "\trdma2\tguid\n", []string{"rdma2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseIBVDevices(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseIBVDevices = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzParseIBVDevices(f *testing.F) {
	f.Add("    device                 node GUID\n    ------    ---\n    bnxt_re0  d604\n")
	f.Fuzz(func(t *testing.T, in string) {
		for _, d := range parseIBVDevices(in) {
			if d == "" || strings.IndexFunc(d, pyfmt.IsSpace) >= 0 || strings.HasPrefix(d, "device") {
				t.Fatalf("bad device %q", d)
			}
		}
	})
}

func TestParseRDMALinks(t *testing.T) {
	l := func(dev string, state, netdev *string) schema.RDMALink {
		return schema.RDMALink{Device: dev, State: state, Netdev: netdev}
	}
	for _, tc := range []struct {
		name, in string
		want     []schema.RDMALink
	}{
		{"broadcom trailing space", "link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev benic7p1 \n", []schema.RDMALink{l("bnxt_re0", strp("ACTIVE"), strp("benic7p1"))}},
		{"ionic down", "link ionic_2/1 state DOWN physical_state DISABLED netdev enp137s0", []schema.RDMALink{l("ionic_2", strp("DOWN"), strp("enp137s0"))}},
		{"no netdev", "link rdma7/1 state DOWN physical_state DISABLED", []schema.RDMALink{l("rdma7", strp("DOWN"), nil)}},
		{"state last", "link rdma0/1 state", []schema.RDMALink{l("rdma0", nil, nil)}},
		{"bare device", "link mlx5_0", []schema.RDMALink{l("mlx5_0", nil, nil)}},
		{"too short", "link\n", nil},
		{"not a link line", "dev rdma0 state ACTIVE\n  link rdma1/1\n", []schema.RDMALink{l("rdma1", nil, nil)}},
		{"first state token wins", "link a/1 state X state Y netdev n netdev m", []schema.RDMALink{l("a", strp("X"), strp("n"))}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseRDMALinks(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseRDMALinks = %s, want %s", pyjson.Encode(got), pyjson.Encode(tc.want))
			}
		})
	}
}

func FuzzParseRDMALinks(f *testing.F) {
	f.Add("link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev benic7p1 \n")
	f.Add("link x state\nlink y/ netdev")
	f.Fuzz(func(t *testing.T, in string) {
		for _, l := range parseRDMALinks(in) {
			if strings.Contains(l.Device, "/") {
				t.Fatalf("device %q keeps a slash", l.Device)
			}
		}
	})
}

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
		if v := parseVersionOutput(in); v != nil && !versionRe.MatchString(*v) {
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

func TestParseRDHCJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"object", `{"rdhc_version": "1.4.0", "t": 1e5, "n": 12.50, "big": 123456789012345678901234567890}`,
			"{\n  \"rdhc_version\": \"1.4.0\",\n  \"t\": 100000.0,\n  \"n\": 12.5,\n  \"big\": 123456789012345678901234567890\n}", ""},
		{"empty object is success", "{}", "{}", ""},
		{"any value", "[1, NaN, -Infinity]", "[\n  1,\n  NaN,\n  -Infinity\n]", ""},
		{"last duplicate wins", `{"a": 1, "b": 2, "a": 3}`, "{\n  \"a\": 3,\n  \"b\": 2\n}", ""},
		{"empty file", "", "", "Expecting value: line 1 column 1 (char 0)"},
		{"bom", "\ufeff{}", "", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"},
		{"invalid start byte", "{\"a\": \"\xff\"}", "", "'utf-8' codec can't decode byte 0xff in position 7: invalid start byte"},
		{"invalid continuation", "ab\xe2\x82x", "", "'utf-8' codec can't decode bytes in position 2-3: invalid continuation byte"},
		{"invalid first continuation", "\xe2x", "", "'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte"},
		{"surrogate", "\xed\xa0\x80", "", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"},
		{"truncated at end", "ab\xe2\x82", "", "'utf-8' codec can't decode bytes in position 2-3: unexpected end of data"},
		{"truncated single", "ab\xf0", "", "'utf-8' codec can't decode byte 0xf0 in position 2: unexpected end of data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parseRDHCJSON([]byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(pyjson.Encode(v)); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func FuzzParseRDHCJSON(f *testing.F) {
	f.Add([]byte(`{"a": [1, 2.0, "x"]}`))
	f.Add([]byte("\xe2\x82"))
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := parseRDHCJSON(in)
		if err == nil {
			_ = pyjson.Encode(v)
		} else if utf8.Valid(in) != !strings.HasPrefix(err.Error(), "'utf-8' codec") {
			t.Fatalf("utf-8 error %v for valid=%v", err, utf8.Valid(in))
		}
	})
}
