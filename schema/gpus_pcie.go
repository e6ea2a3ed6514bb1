package schema

import (
	"math"
	"strconv"
	"strings"
)

// LinkSpeed is the number of a sysfs link speed as the kernel writes it
// in current_link_speed and max_link_speed ("16.0 GT/s PCIe", older
// kernels "8 GT/s"), in GT/s; false for "Unknown" and anything else
// (NaN, infinities and negative numbers included).
func LinkSpeed(s string) (float64, bool) {
	n, unit, ok := strings.Cut(s, " ")
	if !ok || !strings.HasPrefix(unit, "GT/s") {
		return 0, false
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}

// BelowMax reports whether the link trained below its maximum: a known
// current speed below a known maximum speed, or a known width below a
// known maximum width (docs/hardware.md).
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
