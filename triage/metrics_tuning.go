package triage

import (
	"strconv"
	"strings"
)

// tuning writes the families of probe_provenance.tuning (schema.Tuning,
// docs/tuning.md): the rules judged, the deviations (their count and one
// constant-1 _info series each, naming the setting, its scope, the family
// and the guide) and, where the document carries --tuning-state's state
// block, each numeric state value of each GPU. A document without the
// block (an older probe) has the families' HELP and TYPE only; a block
// whose family is null (no Instinct GPU: nothing judged) still has its
// checked sample, 0.
func (e *exposition) tuning(d *Document) {
	v, _ := d.Lookup(tuningKey)
	m, _ := v.(object)
	e.family("aorta_tuning_checked", "gauge", "How many rules of AMD's Instinct guides were judged (probe_provenance.tuning.checked; 0 when no Instinct GPU was seen).")
	if c, ok := finite(lookupIn(m, "checked")); ok && m != nil {
		e.sample("aorta_tuning_checked", nil, formatFloat(c))
	}
	list, isList := lookupIn(m, "deviations").([]any)
	e.family("aorta_tuning_deviations", "gauge", "How many rules of AMD's Instinct guides the node's settings break (probe_provenance.tuning.deviations).")
	if isList {
		e.sample("aorta_tuning_deviations", nil, strconv.Itoa(len(list)))
	}
	e.family("aorta_tuning_deviation_info", "gauge", "One rule of AMD's Instinct guides a setting breaks: the setting, its scope (node or a GPU's PCI address), the value found, the guide's value, the GPU family and the guide and section by name; always 1.")
	for _, x := range list {
		dm, _ := x.(object)
		e.sample("aorta_tuning_deviation_info", []label{
			{"setting", textAt(dm, "setting")},
			{"scope", textAt(dm, "scope")},
			{"value", textAt(dm, "value")},
			{"guide_value", textAt(dm, "guide_value")},
			{"family", textAt(dm, "family")},
			{"guide", textAt(dm, "guide")},
			{"section", textAt(dm, "section")},
		}, "1")
	}
	e.tuningState(lookupIn(m, "state.gpus"))
}

// tuningState writes --tuning-state's per-GPU values: a counter (a name
// ending in _count or _total: replays, error counts since the driver
// loaded) in aorta_tuning_state_events_total, any other number in the
// aorta_tuning_state gauge, one series per GPU and name; an object of
// numbers (ue/ce/de of a RAS block) one series per member, "name.member".
// Text values (clock level tables) and values not read have no sample.
func (e *exposition) tuningState(v any) {
	gpus, _ := v.([]any)
	const gauge, counter = "aorta_tuning_state", "aorta_tuning_state_events_total"
	type sample struct {
		labels []label
		value  string
	}
	var gauges, counters []sample
	for _, g := range gpus {
		gm, _ := g.(object)
		pci := textAt(gm, "pci")
		values, _ := lookupIn(gm, "values").(object)
		for _, kv := range values {
			add := func(name string, x any) {
				f, ok := finite(x)
				if !ok {
					return
				}
				s := sample{[]label{{"pci", pci}, {"name", name}}, formatFloat(f)}
				if strings.HasSuffix(kv.Key, "_count") || strings.HasSuffix(kv.Key, "_total") {
					counters = append(counters, s)
				} else {
					gauges = append(gauges, s)
				}
			}
			val := kv.Value
			if o, ok := val.(object); ok {
				for _, member := range o {
					add(kv.Key+"."+member.Key, member.Value)
				}
				continue
			}
			add(kv.Key, val)
		}
	}
	e.family(gauge, "gauge", "A per-moment value of a GPU read with --tuning-state (power, temperature, busy %, memory in use …; its unit is in its name), by GPU and name (docs/tuning.md).")
	for _, s := range gauges {
		e.sample(gauge, s.labels, s.value)
	}
	e.family(counter, "counter", "A GPU counter read with --tuning-state (PCIe replays, RAS error counts …), since the driver loaded, by GPU and name (docs/tuning.md).")
	for _, s := range counters {
		e.sample(counter, s.labels, s.value)
	}
}
