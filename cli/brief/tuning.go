package brief

import (
	"strconv"
	"strings"

	"aorta-probe/schema"
)

// tuningCell is the brief's tuning line (docs/tuning.md, "Where users
// look") from probe_provenance.tuning: "as AMD's guides recommend (18
// checked)" when no rule found a deviation, else how many and each one,
// "4 off AMD's MI300X guides: numa_balancing=1 (guide: 0), …", a per-GPU
// one with its PCI address. No Instinct GPU: the settings are recorded,
// nothing is judged. The line is escaped with the others (internal/visible).
func tuningCell(t schema.Tuning) string {
	switch {
	case t.Reason != nil:
		return "not read: " + *t.Reason
	case t.Family == nil:
		return "no Instinct GPU seen: " + plural(len(t.Node)-len(t.NodeUnread), "node setting") + " recorded, nothing judged"
	case len(t.Deviations) == 0:
		return "as AMD's guides recommend (" + strconv.Itoa(t.Checked) + " checked)"
	}
	who := *t.Family
	if t.Product != nil {
		who = *t.Product
	}
	parts := make([]string, len(t.Deviations))
	for i, d := range t.Deviations {
		s := d.Setting + "=" + d.Value
		if d.Scope != "node" {
			s += " on " + d.Scope
		}
		parts[i] = s + " (guide: " + d.GuideValue + ")"
	}
	return strconv.Itoa(len(t.Deviations)) + " off AMD's " + who + " guides (" + strconv.Itoa(t.Checked) + " checked): " + strings.Join(parts, ", ")
}
