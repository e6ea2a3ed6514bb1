package triage

import (
	"slices"
	"strconv"
	"strings"
)

// The tuning group: probe_provenance.tuning (schema.Tuning, docs/tuning.md)
// as triage compares it (docs/triage.md, "Tuning"). Like the gpus block
// it is not walked leaf by leaf: tuningFields projects it onto fields that
// mean the same on every node, and diff, --fleet and the fingerprints
// compare those.
//
//   - A node setting is one field, probe_provenance.tuning.node.<setting>,
//     compared by key: its value when read, else why not, from node_unread
//     ("absent", "unreadable (EACCES)"); where it is read (sources) is
//     ignored (a path under --root: the setting's name says which file).
//   - A per-GPU setting is one field over the GPUs,
//     probe_provenance.tuning.gpus[].<setting>, an address-free spread as
//     for the gpus block (gpus.go): its values and their counts, the PCI
//     addresses only illustrating.
//   - The deviations are one field, probe_provenance.tuning.deviations:
//     the set of (setting, family, guide) the node breaks. The value found
//     is compared through the setting itself, the scope is an address, the
//     section and why are the guide's constant text.
//   - family, product and checked are compared as they are.
//   - state is per-moment (clocks, temperatures, counters): never drift,
//     ignored; reason quotes paths, and the unread settings say what could
//     not be read.
//
// What is kept of the block and of each device is the field table's
// (fields.go): a member of class ignored or per-node there is dropped.

// tuningKey is the block's path.
const tuningKey = "probe_provenance.tuning"

// tuningNodeKey begins the path of every projected node setting,
// tuningGPUsKey of every per-GPU setting's spread.
const (
	tuningNodeKey       = tuningKey + ".node."
	tuningGPUsKey       = tuningKey + ".gpus[]."
	tuningDeviationsKey = tuningKey + ".deviations"
)

// deviation is one entry of the block's deviations list as compared and
// shown.
type deviation struct {
	// key is the compared triple: "setting (family: guide)".
	key string
	// setting is the node key or "gpus.<setting>".
	setting string
	// text says what was found and what the guide recommends, with its
	// scope, for people.
	text string
	raw  object
}

// tuningBlock is a document's probe_provenance.tuning projected.
type tuningBlock struct {
	fields     []gpuField
	deviations []deviation
}

// tuningLeaves is d's probe_provenance.tuning as comparable fields, nil
// when the document has no such block (an older aorta-probe) or it is
// null.
func tuningLeaves(d *Document) []leaf {
	b := tuningOf(d)
	if b == nil {
		return nil
	}
	out := make([]leaf, len(b.fields))
	for i, f := range b.fields {
		out[i] = leaf{f.path, f.key}
	}
	return out
}

// tuningOf projects d's probe_provenance.tuning, nil without one.
func tuningOf(d *Document) *tuningBlock {
	v, _ := d.Lookup(tuningKey)
	m, ok := v.(object)
	if !ok {
		return nil
	}
	b := &tuningBlock{fields: []gpuField{}}
	for _, e := range m {
		if dropped([]string{"probe_provenance", "tuning", e.Key}) {
			continue
		}
		switch e.Key {
		case "node_unread":
			// Read with node.
		case "node":
			settings, _ := e.Value.(object)
			unread, _ := m.Get("node_unread")
			for _, s := range settings {
				if dropped([]string{"probe_provenance", "tuning", "node", s.Key}) {
					continue
				}
				v := settingValue(s.Value, unread, s.Key)
				b.fields = append(b.fields, gpuField{path: tuningNodeKey + s.Key, key: shown(v)})
			}
		case "gpus":
			list, _ := e.Value.([]any)
			b.fields = append(b.fields, spreadsUnder(tuningGPUsKey, tuningDevices(list))...)
		case "deviations":
			list, _ := e.Value.([]any)
			b.deviations = deviationsOf(list)
			b.fields = append(b.fields, gpuField{path: tuningDeviationsKey, key: deviationSet(b.deviations)})
		default:
			b.fields = append(b.fields, gpuField{path: tuningKey + "." + e.Key, key: shown(e.Value)})
		}
	}
	return b
}

// dropped reports whether the field table leaves a path of the block out
// of the comparison: class ignored or per-node.
func dropped(path []string) bool {
	c := classOf(path)
	return c == classIgnored || c == classPerNode
}

// settingValue is one setting as compared: its value when read (not
// null), else why not, from the unread map beside it: "absent" (no such
// file), "unreadable (EACCES)" (the file is there; the error's name), or
// null where neither says.
func settingValue(v, unread any, name string) any {
	if v != nil {
		return v
	}
	u, _ := unread.(object)
	why, _ := u.Get(name)
	switch w, _ := why.(string); w {
	case "":
		return nil
	case "absent":
		return w
	default:
		return "unreadable (" + w + ")"
	}
}

// tuningDevices are the per-GPU settings of the block's gpus list, each
// device labelled by its pci ("#i" without one), its settings projected
// by settingValue with its unread map, but those the field table drops
// (the XGMI hive id).
func tuningDevices(list []any) []gpuDevice {
	devs := make([]gpuDevice, len(list))
	// skip is the field table's answer per setting name: every GPU has
	// the same names, and a fleet projects many documents.
	skip := map[string]bool{}
	for i, dv := range list {
		m, _ := dv.(object)
		d := gpuDevice{label: "#" + strconv.Itoa(i), read: true, raw: m}
		if p, ok := m.Get("pci"); ok {
			if s, ok := p.(string); ok {
				d.label = s
			}
		}
		sv, _ := m.Get("settings")
		settings, _ := sv.(object)
		unread, _ := m.Get("unread")
		for _, s := range settings {
			drop, ok := skip[s.Key]
			if !ok {
				drop = dropped([]string{"probe_provenance", "tuning", "gpus[]", "settings", s.Key})
				skip[s.Key] = drop
			}
			if drop {
				continue
			}
			d.set(s.Key, settingValue(s.Value, unread, s.Key))
		}
		devs[i] = d
	}
	return devs
}

// deviationsOf reads the deviations list: each entry's compared triple
// and its text, "numa_balancing=1 (guide: 0; AMD Instinct MI300X system
// optimization, “Disable NUMA auto-balancing”)", with " on <scope>" for
// a GPU's.
func deviationsOf(list []any) []deviation {
	out := make([]deviation, 0, len(list))
	for _, x := range list {
		m, _ := x.(object)
		get := func(k string) string { v, _ := m.Get(k); return scalarText(v) }
		setting, family, guide := get("setting"), get("family"), get("guide")
		text := setting + "=" + get("value") + " (guide: " + get("guide_value") + "; " + guide
		switch s := get("section"); {
		case strings.HasPrefix(s, "("): // "(whole page; …)": no section to quote
			text += " " + s
		case s != "":
			text += ", “" + s + "”"
		}
		text += ")"
		if scope := get("scope"); scope != "" && scope != "node" {
			text += " on " + scope
		}
		out = append(out, deviation{key: setting + " (" + family + ": " + guide + ")", setting: setting, text: text, raw: m})
	}
	return out
}

// deviationSet is the deviations field's comparison key: the distinct
// triples, sorted, as a JSON list of strings ([] for none).
func deviationSet(ds []deviation) string {
	keys := triples(ds)
	list := make([]any, len(keys))
	for i, k := range keys {
		list[i] = k
	}
	return compact(list)
}

// triples are the distinct compared triples of ds, sorted.
func triples(ds []deviation) []string {
	keys := make([]string, 0, len(ds))
	for _, d := range ds {
		keys = append(keys, d.key)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// deviationsText is the deviations field's key for people: the triples
// joined with "; ", "none" for the empty set.
func deviationsText(key string) string {
	x, err := decodeJSON(key)
	list, _ := x.([]any)
	if err != nil {
		return ""
	}
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = valueText(s)
	}
	return strings.Join(parts, "; ")
}

// settingRulePath is the rule path of a deviation's setting: a node key's
// projected field, or for "gpus.<setting>" the per-GPU spread.
func settingRulePath(setting string) string {
	if s, ok := strings.CutPrefix(setting, "gpus."); ok {
		return tuningGPUsKey + s
	}
	return tuningNodeKey + setting
}

// tuningDifferences ranks the differences of the two documents'
// probe_provenance.tuning, compared only when both carry the block: the
// block and node fields as they are (by setting name), the per-GPU
// settings as address-free spreads (the addresses illustrate), and one
// difference per (setting, family, guide) that one side breaks and the
// other does not, named probe_provenance.tuning.deviations[<setting>]
// (the family and guide are in its values),
// each side showing what it found and what the guide recommends.
func tuningDifferences(a, b *Document) []Difference {
	ta, tb := tuningOf(a), tuningOf(b)
	if ta == nil || tb == nil {
		return nil
	}
	var out []Difference
	add := func(key, rulePath string, av, bv Value) {
		rank, group, why := classify(strings.Split(rulePath, "."))
		out = append(out, Difference{Key: key, Group: group, Rank: rank, A: av, B: bv, Why: why})
	}
	out = append(out, deviationDifferences(ta.deviations, tb.deviations)...)
	inB := make(map[string]gpuField, len(tb.fields))
	for _, f := range tb.fields {
		inB[f.path] = f
	}
	inA := make(map[string]bool, len(ta.fields))
	for _, f := range ta.fields {
		inA[f.path] = true
		g, ok := inB[f.path]
		switch {
		case f.path == tuningDeviationsKey || ok && g.key == f.key:
		case f.spread != nil:
			add(f.path, f.path, f.spread.value(false, 0), spreadValue(g, ok))
		default:
			add(f.path, f.path, leafValue(f.path, f.key), fieldValue(g, ok))
		}
	}
	for _, f := range tb.fields {
		switch {
		case inA[f.path] || f.path == tuningDeviationsKey:
		case f.spread != nil:
			add(f.path, f.path, Value{}, f.spread.value(false, 0))
		default:
			add(f.path, f.path, Value{}, leafValue(f.path, f.key))
		}
	}
	return out
}

// deviationDifferences is one difference per triple one side breaks and
// the other does not, in the documents' order, ranked with the
// deviations rule; why is the
// setting's (rules.go). The JSON of a side is the list of its deviation
// entries for the triple ([] where it has none); the text names what was
// found and the guide, or "no deviation".
func deviationDifferences(da, db []deviation) []Difference {
	ka, kb := triples(da), triples(db)
	var out []Difference
	side := func(ds []deviation, key string) Value {
		var list []any
		var texts []string
		for _, d := range ds {
			if d.key == key {
				list = append(list, d.raw)
				texts = append(texts, d.text)
			}
		}
		if len(list) == 0 {
			return Value{Present: true, JSON: "[]", text: "no deviation"}
		}
		return Value{Present: true, JSON: compact(list), text: strings.Join(texts, "; ")}
	}
	rank, group, _ := classify(strings.Split(tuningDeviationsKey, "."))
	// In the documents' order (the rule table's), A's first.
	var order []string
	for _, d := range append(slices.Clone(da), db...) {
		if !slices.Contains(order, d.key) {
			order = append(order, d.key)
		}
	}
	for _, key := range order {
		if slices.Contains(ka, key) && slices.Contains(kb, key) || slices.ContainsFunc(out, func(d Difference) bool { return d.A.JSON+d.B.JSON == side(da, key).JSON+side(db, key).JSON }) {
			continue
		}
		setting, _, _ := strings.Cut(key, " (")
		_, _, why := classify(strings.Split(settingRulePath(setting), "."))
		out = append(out, Difference{Key: tuningDeviationsKey + "[" + setting + "]", Group: group, Rank: rank, A: side(da, key), B: side(db, key), Why: "off AMD's guide: " + why})
	}
	return out
}

// TuningOutliers names the outliers whose tuning settings leave the
// majority: the tuning fields each differs on, without the
// "probe_provenance.tuning." prefix, in the order of Outliers.
func (f *FleetResult) TuningOutliers() []GPUOutlier { return f.outliersIn(GroupTuning, tuningKey) }
