package triage

import (
	"slices"
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

// stateCounters are the state values that count events since the driver
// loaded (AER: since boot), beside every name ending in _count or _total.
var stateCounters = []string{"aer_correctable", "aer_fatal", "aer_nonfatal"}

// tuningState writes --tuning-state's per-GPU values (docs/tuning.md):
// the RAS error counts (ras_err_counts: block → ue/ce/de) in
// aorta_tuning_ras_errors_total by block and type; other counters
// (stateCounters) in aorta_tuning_state_events_total; any other number in
// the aorta_tuning_state gauge, one series per GPU and name, an object of
// numbers one series per member ("name.member"). Text values and values
// not read (null) have no sample.
func (e *exposition) tuningState(v any) {
	gpus, _ := v.([]any)
	const gauge, events, ras = "aorta_tuning_state", "aorta_tuning_state_events_total", "aorta_tuning_ras_errors_total"
	type sample struct {
		labels []label
		value  string
	}
	out := map[string][]sample{}
	for _, g := range gpus {
		gm, _ := g.(object)
		pci := textAt(gm, "pci")
		values, _ := lookupIn(gm, "values").(object)
		for _, kv := range values {
			family := gauge
			if strings.HasSuffix(kv.Key, "_count") || strings.HasSuffix(kv.Key, "_total") || slices.Contains(stateCounters, kv.Key) {
				family = events
			}
			var add func(name string, x any)
			add = func(name string, x any) {
				if o, ok := x.(object); ok {
					for _, m := range o {
						add(name+"."+m.Key, m.Value)
					}
				} else if f, ok := finite(x); ok {
					out[family] = append(out[family], sample{[]label{{"pci", pci}, {"name", name}}, formatFloat(f)})
				}
			}
			if kv.Key != "ras_err_counts" {
				add(kv.Key, kv.Value)
				continue
			}
			blocks, _ := kv.Value.(object)
			for _, b := range blocks {
				counts, _ := b.Value.(object)
				for _, c := range counts {
					if f, ok := finite(c.Value); ok {
						out[ras] = append(out[ras], sample{[]label{{"pci", pci}, {"block", b.Key}, {"type", c.Key}}, formatFloat(f)})
					}
				}
			}
		}
	}
	for _, f := range []struct{ name, typ, help string }{
		{gauge, "gauge", "A per-moment value of a GPU read with --tuning-state (clocks, power, temperature, busy %, memory in use, retired pages …; its unit is in its name), by GPU and name (docs/tuning.md)."},
		{events, "counter", "A GPU event counter read with --tuning-state (PCIe replays since the driver loaded, AER error totals since boot), by GPU and name (docs/tuning.md)."},
		{ras, "counter", "A GPU's RAS error count read with --tuning-state (ras/<block>_err_count), since the driver loaded, by GPU, block and type (ue uncorrectable, ce correctable, de deferred) (docs/tuning.md)."},
	} {
		e.family(f.name, f.typ, f.help)
		for _, s := range out[f.name] {
			e.sample(f.name, s.labels, s.value)
		}
	}
}
