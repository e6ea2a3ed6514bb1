package source

import (
	"regexp"
	"strconv"
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
)

// Parsers of AMD AINIC nicctl output (docs/hardware.md#nics). Python's \w and
// \d are Unicode-aware, RE2's are ASCII; real nicctl output is ASCII.

var (
	// nicctlVersionRe finds "1.117.5-a-74" in `nicctl --version`.
	nicctlVersionRe = lazyre.New(`\d+\.\d+\.\d+[-\w]*`)
	// versionRe finds a version in `nicctl show version ... --json` values.
	versionRe = lazyre.New(`\d+\.\d+\.\d+[\w.\-]*`)
	uuidRe    = lazyre.New(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)
	asicRe    = lazyre.New(`(?i)\b(salina|elba|giglio)\b`)
	cardFWRe  = lazyre.New(`(?im)^\s*(?:firmware|fw)[\w \-]*[:=]\s*(\d[\w.\-]+)`)
	profileRe = lazyre.New(`device_config_\w+`)
	dcqcnInts = []struct {
		key string
		re  func() *regexp.Regexp
	}{
		{"token_bucket_size", lazyre.New(`(?im)^\s*token-bucket-size[\s:=]+(\d+)`)},
		{"ai_rate", lazyre.New(`(?im)^\s*ai-rate[\s:=]+(\d+)`)},
		{"hai_rate", lazyre.New(`(?im)^\s*hai-rate[\s:=]+(\d+)`)},
		{"cnp_dscp", lazyre.New(`(?im)^\s*cnp-dscp[\s:=]+(\d+)`)},
	}
	dcqcnEnabledRe = lazyre.New(`(?im)^\s*enabled[\s:=]+(true|false|1|0)`)
)

// ParseNicctlVersion is nicctl_version from `nicctl --version` stdout
// (already stripped): the first version-looking run, else the whole output;
// nil when the output is empty.
func ParseNicctlVersion(out string) *string {
	if out == "" {
		return nil
	}
	if m := nicctlVersionRe().FindString(out); m != "" {
		return &m
	}
	return &out
}

// ParseNicctlShowVersion is the version-parse of `nicctl show version firmware
// --json` and `... host-software --json`: JSON text is walked depth-first
// (object values in key order, then array elements) for the first string
// holding a version; failing that, or for non-JSON text, the first version
// in the whole text; nil when there is none.
func ParseNicctlShowVersion(out string) *string {
	t := pyfmt.Strip(out)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if v, err := pyjson.Decode(t); err == nil {
			if m, ok := firstVersionIn(v); ok {
				return &m
			}
		}
	}
	if m := versionRe().FindString(t); m != "" {
		return &m
	}
	return nil
}

func firstVersionIn(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		if m := versionRe().FindString(x); m != "" {
			return m, true
		}
	case pyjson.Map[any]:
		for _, e := range x {
			if m, ok := firstVersionIn(e.Value); ok {
				return m, true
			}
		}
	case []any:
		for _, e := range x {
			if m, ok := firstVersionIn(e); ok {
				return m, true
			}
		}
	}
	return "", false
}

// CardDetail is what `nicctl show card --detail` gives.
type CardDetail struct {
	UUID, ASIC, Firmware *string
}

// ParseCardDetail takes the first canonical UUID, the first ASIC name
// (salina, elba, giglio; whole word, any case) upper-cased, and a
// "Firmware ...: <version>" / "fw ... = <version>" line's value.
func ParseCardDetail(out string) CardDetail {
	var c CardDetail
	if m := uuidRe().FindString(out); m != "" {
		c.UUID = &m
	}
	if m := asicRe().FindString(out); m != "" {
		u := strings.ToUpper(m)
		c.ASIC = &u
	}
	if m := cardFWRe().FindStringSubmatch(out); m != nil {
		c.Firmware = &m[1]
	}
	return c
}

// CardProfile is `nicctl show card profile -c <uuid>`.
type CardProfile struct {
	DeviceConfig *string // the first device_config_<word> token
	SRIOV        *bool   // whether it names an SR-IOV (_vf) profile
}

// ParseCardProfile is `nicctl show card profile -c <uuid>`: the first
// device_config_<word> token, and whether it names an SR-IOV (_vf) profile.
// Both stay nil without a match.
func ParseCardProfile(out string) CardProfile {
	var p CardProfile
	if m := profileRe().FindString(out); m != "" {
		sriov := strings.Contains(m, "_vf")
		p.DeviceConfig, p.SRIOV = &m, &sriov
	}
	return p
}

// DCQCN is DCQCN profile 1 of an RDMA device.
type DCQCN struct {
	Enabled         *bool // enabled
	TokenBucketSize *int  // token-bucket-size
	AIRate          *int  // ai-rate
	HAIRate         *int  // hai-rate
	CNPDSCP         *int  // cnp-dscp
}

// ParseDCQCN is `nicctl show dcqcn --roce-device <dev> --profile-id 1`:
//
//	dcqcn-profile 1
//	  enabled true
//	  token-bucket-size 800000
//
// Each key is matched at a line start (case-insensitive) followed by
// whitespace, ':' or '='; the integers are decimal, enabled is
// true|false|1|0.
func ParseDCQCN(out string) DCQCN {
	var d DCQCN
	for _, f := range dcqcnInts {
		m := f.re().FindStringSubmatch(out)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil { // more digits than an int holds
			continue
		}
		switch f.key {
		case "token_bucket_size":
			d.TokenBucketSize = &n
		case "ai_rate":
			d.AIRate = &n
		case "hai_rate":
			d.HAIRate = &n
		case "cnp_dscp":
			d.CNPDSCP = &n
		}
	}
	if m := dcqcnEnabledRe().FindStringSubmatch(out); m != nil {
		v := strings.ToLower(m[1])
		on := v == "true" || v == "1"
		d.Enabled = &on
	}
	return d
}
