package source

import (
	"strings"

	"aorta-probe/internal/pyfmt"
)

// ParseIBVDevices returns the device names of `ibv_devices` output, in
// output order:
//
//	device                 node GUID
//	------              ----------------
//	bnxt_re0            d604e6fffe3e3890
//
// Each line is stripped; blank lines, the header (starts with "device") and
// rulers (only '-' and spaces) are skipped; the first whitespace-separated
// token is the name (docs/hardware.md#nics).
func ParseIBVDevices(out string) []string {
	var devs []string
	for _, line := range pyfmt.Splitlines(out) {
		l := pyfmt.Strip(line)
		if l == "" || strings.HasPrefix(l, "device") || strings.Trim(l, "- ") == "" {
			continue
		}
		devs = append(devs, pyfmt.Fields(l)[0])
	}
	return devs
}
