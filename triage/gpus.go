package triage

import (
	"slices"
	"strconv"
	"strings"

	"aorta-probe/schema"
)

// The hardware group: probe_provenance.gpus (docs/hardware.md) as triage
// compares it (docs/triage.md, "Hardware"). The block is a list of
// devices in PCI order, and two nodes legitimately differ in what
// identifies a device (its serial, its address), so it is not walked
// leaf by leaf like the rest of the document: gpuLeaves projects it onto
// fields that mean the same on every node, one per device attribute over
// all the devices ("probe_provenance.gpus.devices[].vbios_version"), and
// both diff and --fleet compare those. The rules table (rules.go) ranks
// them.

// gpusKey is the block's path.
const gpusKey = "probe_provenance.gpus"

// gpuPerNode are the device fields of class per-node (fields.go), which
// identify a device or a place rather than describe it, never compared: unique_id (the chip's serial:
// differs between any two nodes), pci (an address: the same board in
// another slot, another server model), hive_id (the XGMI hive's id, per
// hive like a serial; membership is compared as hives), drm_device and
// drm_reason (a sysfs path and why it was not read: the fields it would
// have given are compared), and the block's source (a path under --root).
// partitions[] is compared as a count per device: its kfd node ids and
// render minors are enumeration order.
var gpuPerNode = deviceFields(classPerNode)

// gpuLeaves is d's probe_provenance.gpus as comparable fields, nil when
// the document has no such block (an older aorta-probe) or it is null.
// The order is the block's; ranking is classify's.
func gpuLeaves(d *Document) []leaf {
	v, _ := d.Lookup(gpusKey)
	g, ok := v.(object)
	if !ok {
		return nil
	}
	var out []leaf
	add := func(key string, value string) {
		out = append(out, leaf{gpusKey + "." + key, value})
	}
	for _, e := range g {
		switch e.Key {
		case "source", "compute_partition", "memory_partition":
			// A path under --root; the modes the devices agree on, which
			// devices[].compute_partition and memory_partition compare.
		case "hives":
			add("hives", hiveShape(e.Value))
		case "devices":
			devs, _ := e.Value.([]any)
			out = append(out, deviceLeaves(devs)...)
		default:
			add(e.Key, shown(e.Value))
		}
	}
	return out
}

// hiveShape is the sizes of the XGMI hives, largest first: "[8]", "[4,4]",
// "[]" for none; the hive ids are per node.
func hiveShape(v any) string {
	list, ok := v.([]any)
	if !ok {
		return shown(v)
	}
	sizes := make([]int, 0, len(list))
	for _, h := range list {
		m, _ := h.(object)
		devs, _ := m.Get("devices")
		l, _ := devs.([]any)
		sizes = append(sizes, len(l))
	}
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	var b strings.Builder
	b.WriteByte('[')
	for i, n := range sizes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(n))
	}
	b.WriteByte(']')
	return b.String()
}

// deviceLeaves is one field per device attribute, its value over every
// device (across): the value when the devices agree, else a summary that
// names the devices off the commonest value. The PCIe link is compared as
// trained (pcie.link, marked when below the maximum) and as the maximum
// (pcie.max); firmware by file name (firmware.<name>); partitions by
// count per device.
func deviceLeaves(devs []any) []leaf {
	if len(devs) == 0 {
		return nil
	}
	labels := make([]string, len(devs))
	var keys []string // device attributes, in first-seen order
	for i, dv := range devs {
		m, _ := dv.(object)
		labels[i] = "#" + strconv.Itoa(i)
		if p, ok := m.Get("pci"); ok {
			if s, ok := p.(string); ok {
				labels[i] = s
			}
		}
		for _, e := range m {
			if !slices.Contains(keys, e.Key) && !slices.Contains(gpuPerNode, e.Key) {
				keys = append(keys, e.Key)
			}
		}
	}
	var out []leaf
	add := func(key string, values []any) {
		out = append(out, leaf{gpusKey + ".devices[]." + key, across(values, labels)})
	}
	get := func(key string) []any {
		vs := make([]any, len(devs))
		for i, dv := range devs {
			m, _ := dv.(object)
			vs[i], _ = m.Get(key)
		}
		return vs
	}
	for _, k := range keys {
		vs := get(k)
		switch k {
		case "pcie":
			links, maxes := make([]any, len(vs)), make([]any, len(vs))
			for i, v := range vs {
				links[i], maxes[i] = pcieLink(v)
			}
			add("pcie.link", links)
			add("pcie.max", maxes)
		case "firmware":
			out = append(out, firmwareLeaves(vs, labels)...)
		case "partitions":
			for i, v := range vs {
				if l, ok := v.([]any); ok {
					vs[i] = number(strconv.Itoa(len(l)))
				}
			}
			add(k, vs)
		default:
			add(k, vs)
		}
	}
	return out
}

// firmwareLeaves is one field per amdgpu firmware file name over the
// devices, names in order; a device without the file reads null. No field
// when no device lists its firmware.
func firmwareLeaves(vs []any, labels []string) []leaf {
	var names []string
	byDevice := make([]map[string]any, len(vs))
	for i, v := range vs {
		list, _ := v.([]any)
		byDevice[i] = map[string]any{}
		for _, f := range list {
			m, _ := f.(object)
			n, _ := m.Get("name")
			name, ok := n.(string)
			if !ok {
				continue
			}
			byDevice[i][name], _ = m.Get("version")
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	var out []leaf
	for _, name := range names {
		per := make([]any, len(vs))
		for i := range vs {
			per[i] = byDevice[i][name]
		}
		out = append(out, leaf{gpusKey + ".devices[].firmware." + name, across(per, labels)})
	}
	return out
}

// pcieLink is a device's PCIe link as trained ("32.0 GT/s PCIe x16",
// with "(below max 32.0 GT/s PCIe x16)" when the speed or the width is
// below the maximum) and its maximum; nil where nothing is known.
func pcieLink(v any) (link, maximum any) {
	m, ok := v.(object)
	if !ok {
		return v, v
	}
	get := func(k string) any { x, _ := m.Get(k); return x }
	cs, cw, ms, mw := get("current_link_speed"), get("current_link_width"), get("max_link_speed"), get("max_link_width")
	cur, mx := linkText(cs, cw), linkText(ms, mw)
	if cur == nil {
		return nil, mx
	}
	s := cur.(string)
	if below(cs, ms) || below(cw, mw) {
		s += " (below max " + mx.(string) + ")"
	}
	return s, mx
}

// linkText is "<speed> x<width>", "?" for an unknown half; nil when both
// are unknown.
func linkText(speed, width any) any {
	if speed == nil && width == nil {
		return nil
	}
	s, w := "?", "?"
	if x, ok := speed.(string); ok {
		s = x
	}
	if x, ok := width.(number); ok {
		w = string(x)
	}
	return s + " x" + w
}

// below reports whether current is a known number below a known maximum:
// a width, or a speed (schema.LinkSpeed: the kernel writes "Unknown"
// when it cannot tell).
func below(current, maximum any) bool {
	n := func(v any) (float64, bool) {
		switch x := v.(type) {
		case number:
			f, err := strconv.ParseFloat(string(x), 64)
			return f, err == nil
		case string:
			return schema.LinkSpeed(x)
		}
		return 0, false
	}
	c, ok1 := n(current)
	m, ok2 := n(maximum)
	return ok1 && ok2 && c < m
}

// across is one attribute over the devices, as a comparison key: the
// value itself (compact JSON) when every device has the same, else a
// string "A ×6; B ×2 (0000:a5:00.0, 0000:b5:00.0)": each distinct value
// with its count, the commonest first (ties in PCI order), and after
// every value but the first the devices that hold it.
func across(values []any, labels []string) string {
	keys := make([]string, len(values))
	for i, v := range values {
		keys[i] = compact(v)
	}
	if !slices.ContainsFunc(keys, func(k string) bool { return k != keys[0] }) {
		return shown(values[0])
	}
	type run struct {
		text string
		devs []string
	}
	var runs []*run
	byKey := map[string]*run{}
	for i, k := range keys {
		r := byKey[k]
		if r == nil {
			t := k
			if s, ok := values[i].(string); ok {
				t = s
			}
			r = &run{text: t}
			byKey[k] = r
			runs = append(runs, r)
		}
		r.devs = append(r.devs, labels[i])
	}
	slices.SortStableFunc(runs, func(a, b *run) int { return len(b.devs) - len(a.devs) })
	var b strings.Builder
	for i, r := range runs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.text + " ×" + strconv.Itoa(len(r.devs)))
		if i > 0 {
			b.WriteString(" (" + strings.Join(r.devs, ", ") + ")")
		}
	}
	return compact(b.String())
}

// hardwareDifferences ranks the differences of the two documents'
// probe_provenance.gpus, compared only when both carry the block (like
// rocm_installs: a document of an older aorta-probe has none).
func hardwareDifferences(a, b *Document) []Difference {
	la, lb := gpuLeaves(a), gpuLeaves(b)
	if la == nil || lb == nil {
		return nil
	}
	// Without devices on one side (no kfd, no GPU), the counts and the
	// reason say it; every device field reading "absent" would bury them.
	devs := func(ls []leaf) bool {
		return slices.ContainsFunc(ls, func(l leaf) bool { return strings.HasPrefix(l.path, gpusKey+".devices[].") })
	}
	both := devs(la) && devs(lb)
	var out []Difference
	diff := func(key string, av, bv Value) {
		if av == bv || (!both && strings.HasPrefix(key, gpusKey+".devices[].")) {
			return
		}
		rank, group, why := classify(strings.Split(key, "."))
		out = append(out, Difference{Key: key, Group: group, Rank: rank, A: av, B: bv, Why: why})
	}
	inB := make(map[string]string, len(lb))
	for _, l := range lb {
		inB[l.path] = l.value
	}
	inA := make(map[string]bool, len(la))
	for _, l := range la {
		inA[l.path] = true
		bv, ok := inB[l.path]
		diff(l.path, leafValue(l.value, true), leafValue(bv, ok))
	}
	for _, l := range lb {
		if !inA[l.path] {
			diff(l.path, Value{}, leafValue(l.value, true))
		}
	}
	return out
}

// leafValue is a leaf's shown value as a Value.
func leafValue(s string, ok bool) Value {
	if !ok {
		return Value{}
	}
	return Value{Present: true, JSON: s, Digest: strings.HasPrefix(s, "<")}
}
