package schema

import (
	"strconv"
	"strings"
)

// LinkSpeed is the number of a sysfs link speed as the kernel writes it
// in current_link_speed and max_link_speed ("16.0 GT/s PCIe", older
// kernels "8 GT/s"), in GT/s: the first of its whitespace-separated
// fields, when the second is "GT/s"; false for "Unknown" and anything
// else (zero, negative, NaN, infinite or above 10^6 GT/s included). It is
// the one reader of a link speed: the brief, diff and metrics all use it.
func LinkSpeed(s string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) < 2 || f[1] != "GT/s" {
		return 0, false
	}
	g, err := strconv.ParseFloat(f[0], 64)
	if err != nil || !(g > 0 && g <= 1e6) { // NaN, Inf, negative: no speed
		return 0, false
	}
	return g, true
}

// BelowMax reports whether the link trained below its maximum: a known
// current speed (LinkSpeed) below a known maximum speed, or a known width
// below a known maximum width (docs/hardware.md). It is the one
// below-max rule: the brief counts with it and diff marks a link with it.
func (p GPUPCIe) BelowMax() bool {
	speed := func(s *string) (float64, bool) {
		if s == nil {
			return 0, false
		}
		return LinkSpeed(*s)
	}
	cs, ok1 := speed(p.CurrentLinkSpeed)
	ms, ok2 := speed(p.MaxLinkSpeed)
	if ok1 && ok2 && cs < ms {
		return true
	}
	return p.CurrentLinkWidth != nil && p.MaxLinkWidth != nil && *p.CurrentLinkWidth < *p.MaxLinkWidth
}
