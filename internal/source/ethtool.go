package source

import (
	"strings"

	"aorta-probe/internal/pyfmt"
)

// EthtoolInfo is `ethtool -i <iface>` output (docs/hardware.md#nics), e.g.
//
//	driver: bnxt_en
//	version: 6.9.0-0_fbk10_brcmrdma13_141_g9
//	firmware-version: 232.0.219.16/pkg 232.1.196.16
//	expansion-rom-version:
//	bus-info: 0000:f3:00.0
//
// Each field is nil when no line names it or its value is empty.
type EthtoolInfo struct {
	Driver          *string // driver:
	Version         *string // version: the driver's
	FirmwareVersion *string // firmware-version: (SplitFirmware)
	BusInfo         *string // bus-info:
}

// ParseEthtoolInfo parses `ethtool -i` output: each field from the first
// line that starts with "<field>:" exactly (the text after the first colon,
// stripped).
func ParseEthtoolInfo(out string) EthtoolInfo {
	return EthtoolInfo{
		Driver:          ethtoolField(out, "driver"),
		Version:         ethtoolField(out, "version"),
		FirmwareVersion: ethtoolField(out, "firmware-version"),
		BusInfo:         ethtoolField(out, "bus-info"),
	}
}

// ethtoolField returns the value of the first line that starts with
// "<field>:" exactly (text after the first colon, stripped); nil when no
// line matches or the value is empty.
func ethtoolField(out, field string) *string {
	for _, line := range pyfmt.Splitlines(out) {
		if !strings.HasPrefix(line, field+":") {
			continue
		}
		v := pyfmt.Strip(line[len(field)+1:])
		if v == "" {
			return nil
		}
		return &v
	}
	return nil
}

// SplitFirmware splits an ethtool firmware-version value at "/pkg": the
// part before it is the firmware, the part after it the package version
// (nil when empty or equal to the firmware). Without "/pkg" the value is
// the firmware unchanged ("28.36.1010 (FB_0000000038)" passes through).
func SplitFirmware(raw *string) (firmware, pkg *string) {
	if raw == nil {
		return nil, nil
	}
	left, right, found := strings.Cut(*raw, "/pkg")
	if !found {
		v := *raw
		return &v, nil
	}
	if l := pyfmt.Strip(left); l != "" {
		firmware = &l
	}
	if r := pyfmt.Strip(right); r != "" && (firmware == nil || r != *firmware) {
		pkg = &r
	}
	return firmware, pkg
}
