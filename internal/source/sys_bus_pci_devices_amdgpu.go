package source

import (
	"strconv"
	"strings"
)

// The amdgpu attributes of a GPU's PCI device directory
// D = /sys/bus/pci/devices/<BDF> that name its settings and state
// (docs/tuning.md; Linux drivers/gpu/drm/amd/pm/amdgpu_pm.c,
// amdgpu_ras.c, amdgpu_xgmi.c). Each file is read at most once by the
// caller: many wake the device and message its SMU.

// HwmonMax bounds the D/hwmon listing (amdgpu registers one).
const HwmonMax = 8

// AMDGPUHwmon is the hwmon directory of the device: D/hwmon/hwmon<N>, the
// first in name order.
func (fs FS) AMDGPUHwmon(dev string) (string, error) {
	dir := dev + "/hwmon"
	es, more, err := fs.m.ReadDirMax(dir, HwmonMax)
	if err != nil {
		return "", readErr(dir, err)
	}
	if more {
		return "", parseErr(dir, "more than "+strconv.Itoa(HwmonMax)+" entries")
	}
	for _, e := range es {
		if strings.HasPrefix(e.Name(), "hwmon") && sysName(e.Name()) == nil {
			return dir + "/" + e.Name(), nil
		}
	}
	return "", readErr(dir+"/hwmon*", fsNotExist(dir+"/hwmon*"))
}

// DPMLevel is one line of a pp_dpm_* file: "1: 2100Mhz *".
type DPMLevel struct {
	Label  string // "0", "1", … or "S" (deep sleep, MI300)
	MHz    int64
	Active bool // the line ends in "*"
}

// ParseDPMLevels parses pp_dpm_sclk/mclk/fclk/socclk: "<level>: <n>Mhz"
// lines, " *" on the active one (amdgpu_pm.c; MI300's SMU 13.0.6 prints
// only min and max, or min, current, max, and an "S: <n>Mhz *" line in
// deep sleep). "unavailable" (after a fatal RAS error) and any other
// line are malformed.
func ParseDPMLevels(s string) ([]DPMLevel, bool) {
	var out []DPMLevel
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		label, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || label == "" {
			return nil, false
		}
		rest = strings.TrimSpace(rest)
		active := strings.HasSuffix(rest, "*")
		rest = strings.TrimSpace(strings.TrimSuffix(rest, "*"))
		num, ok := strings.CutSuffix(strings.ToLower(rest), "mhz")
		n, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || n < 0 {
			return nil, false
		}
		if label != "S" {
			if _, err := strconv.Atoi(label); err != nil {
				return nil, false
			}
		}
		out = append(out, DPMLevel{Label: label, MHz: n, Active: active})
	}
	return out, len(out) > 0
}

// DPMRange is the lowest and highest level of a DPM table (the first and
// last numbered lines; the deep-sleep "S:" line is no level).
func DPMRange(levels []DPMLevel) (lo, hi int64, ok bool) {
	first := true
	for _, l := range levels {
		if l.Label == "S" {
			continue
		}
		if first {
			lo, first = l.MHz, false
		}
		hi = l.MHz
	}
	return lo, hi, !first
}

// ParsePMPolicy is the current level of a pm_policy file
// ("0 : soc_pstate_default\n1 : soc_pstate_0*": "soc_pstate_0").
func ParsePMPolicy(s string) (string, bool) {
	found := ""
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		_, name, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return "", false
		}
		if n, cur := strings.CutSuffix(name, "*"); cur {
			if found != "" {
				return "", false
			}
			found = strings.TrimSpace(n)
		}
	}
	return found, found != ""
}

// ParsePPFeatures is the enabled-feature mask of pp_features, the hex
// number of its first line ("Current ppfeatures: 0x0000000019a1ff4f"),
// lower-cased.
func ParsePPFeatures(s string) (string, bool) {
	first, _, _ := strings.Cut(s, "\n")
	return hexAfter(first, ":")
}

// ParseRASFeatures is the mask of ras/features ("feature mask: 0x3ff").
func ParseRASFeatures(s string) (string, bool) {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if !strings.HasPrefix(first, "feature mask:") {
		return "", false
	}
	return hexAfter(first, ":")
}

func hexAfter(line, sep string) (string, bool) {
	_, v, ok := strings.Cut(line, sep)
	v = strings.ToLower(strings.TrimSpace(v))
	h, isHex := strings.CutPrefix(v, "0x")
	if !ok || !isHex || h == "" || len(h) > 32 {
		return "", false
	}
	if _, err := strconv.ParseUint(h, 16, 64); err != nil && len(h) <= 16 {
		return "", false
	}
	for _, r := range h {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return "", false
		}
	}
	return v, true
}

// ParseThermalThrottlingLogging reads thermal_throttling_logging
// ("0000:09:00.0: thermal throttling logging enabled, with interval 60
// seconds", or "… disabled"): enabled, and the interval in seconds (0
// when disabled).
func ParseThermalThrottlingLogging(s string) (enabled bool, interval int64, ok bool) {
	_, rest, found := strings.Cut(s, "thermal throttling logging ")
	if !found {
		return false, 0, false
	}
	rest = strings.TrimSpace(rest)
	if rest == "disabled" {
		return false, 0, true
	}
	n, found := strings.CutPrefix(rest, "enabled, with interval ")
	n, sec := strings.CutSuffix(n, " seconds")
	v, err := strconv.ParseInt(n, 10, 64)
	if !found || !sec || err != nil || v < 0 {
		return false, 0, false
	}
	return true, v, true
}

// ParseRASCount reads a ras/<block>_err_count file ("ue: 0\nce: 1", newer
// kernels add "de: 0"): the counts by key. "Query currently inaccessible"
// and other lines are malformed.
func ParseRASCount(s string) (map[string]int64, bool) {
	out := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		k, v, ok := strings.Cut(line, ":")
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		k = strings.TrimSpace(k)
		if !ok || err != nil || k == "" || strings.ContainsAny(k, " \t") {
			return nil, false
		}
		out[k] = n
	}
	return out, len(out) > 0
}

// ParseBadPages counts the lines of ras/gpu_vram_bad_pages
// ("0x00000001 : 0x00001000 : R"); an empty file is 0.
func ParseBadPages(s string) (int, bool) {
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.Count(line, ":") != 2 {
			return 0, false
		}
		n++
	}
	return n, true
}

// ParseAERTotal is the TOTAL_ERR_* line of an aer_dev_* file (one
// "<name> <count>" line per error type; the name may hold spaces, the
// count is the last field).
func ParseAERTotal(s string) (int64, bool) {
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && strings.HasPrefix(f[0], "TOTAL_ERR_") {
			n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
			return n, err == nil && n >= 0
		}
	}
	return 0, false
}
