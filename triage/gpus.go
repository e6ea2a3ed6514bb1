package triage

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"aorta-probe/schema"
)

// The hardware group: probe_provenance.gpus (docs/hardware.md) as triage
// compares it (docs/triage.md, "Hardware"). The block is a list of
// devices in PCI order, and two nodes legitimately differ in what
// identifies a device (its serial, its address), so it is not walked
// leaf by leaf like the rest of the document: gpuFields projects it onto
// fields that mean the same on every node, one per device attribute over
// all the devices ("probe_provenance.gpus.devices[].vbios_version"), and
// diff, --fleet and the fingerprints compare those. A field's comparison
// key holds values and counts, never an address: the same boards in other
// slots are the same hardware. Addresses only illustrate a value (the
// text report, the JSON's "devices"), and name the devices that appeared,
// disappeared or changed when both documents come from one machine and
// boot (sameMachine). The rules table (rules.go) ranks the fields.

// gpusKey is the block's path.
const gpusKey = "probe_provenance.gpus"

// devicesKey begins the path of every device attribute.
const devicesKey = gpusKey + ".devices[]."

// gpuPerNode are the device fields of class per-node (fields.go), which
// identify a device or a place rather than describe it, never compared:
// unique_id (the chip's serial:
// differs between any two nodes), pci (an address: the same board in
// another slot, another server model), hive_id (the XGMI hive's id, per
// hive like a serial; membership is compared as hives), drm_device and
// drm_reason (a sysfs path and why it was not read: amdgpu_sysfs says
// whether it was), reasons (why a device's value is null or why it was
// kept apart: they quote paths, node ids and addresses; the null values
// themselves are compared), and the block's source (a path under --root).
// partitions[] is compared as a count per device: its kfd node ids and
// render minors are enumeration order.
var gpuPerNode = deviceFields(classPerNode)

// amdgpuAttrs are the device fields read from amdgpu's sysfs, the DRM
// device (internal/source/sys_class_drm_amdgpu.go). On a device whose drm_device is null
// they were not read: the device is left out of their spreads, and its
// projected amdgpu_sysfs field reads "not read" instead of every one of
// them reading null.
var amdgpuAttrs = []string{"numa_node", "product_name", "vbios_version", "vram_bytes", "compute_partition",
	"available_compute_partitions", "memory_partition", "available_memory_partitions", "pcie", "firmware"}

// gpuField is one comparable field of the block: a block field (the
// counts, the hive sizes, the reason) or a device attribute over the
// devices (spread set).
type gpuField struct {
	path string
	// key is the comparison key, without an address: the value's compact
	// JSON for a block field or an attribute every device agrees on, else
	// the spread's values with their counts (spread.key).
	key    string
	spread spread
}

// gpuDevice is one device of the block as gpuFields projects it.
type gpuDevice struct {
	// label is the PCI address, "#i" for a device without one.
	label string
	// read is false when the device's drm_device is null: its amdgpu
	// fields were not read. reason is its drm_reason.
	read   bool
	reason any
	attrs  object // projected attributes, in the device's order
	raw    object
}

// gpuLeaves is d's probe_provenance.gpus as comparable fields, nil when
// the document has no such block (an older aorta-probe) or it is null.
func gpuLeaves(d *Document) []leaf {
	fs, _ := gpuFields(d)
	if fs == nil {
		return nil
	}
	out := make([]leaf, len(fs))
	for i, f := range fs {
		out[i] = leaf{f.path, f.key}
	}
	return out
}

// gpuFields is d's probe_provenance.gpus projected (gpuLeaves), with the
// devices it read; nil when there is no block. The order is the block's;
// ranking is classify's.
func gpuFields(d *Document) ([]gpuField, []gpuDevice) {
	v, _ := d.Lookup(gpusKey)
	g, ok := v.(object)
	if !ok {
		return nil, nil
	}
	out := []gpuField{}
	var devs []gpuDevice
	for _, e := range g {
		switch e.Key {
		case "source", "compute_partition", "memory_partition":
			// A path under --root; the modes the devices agree on, which
			// devices[].compute_partition and memory_partition compare.
		case "hives":
			out = append(out, gpuField{path: gpusKey + ".hives", key: hiveShape(e.Value)})
		case "devices":
			list, _ := e.Value.([]any)
			devs = projectDevices(list)
			out = append(out, spreadsUnder(devicesKey, devs)...)
		default:
			out = append(out, gpuField{path: gpusKey + "." + e.Key, key: shown(e.Value)})
		}
	}
	return out, devs
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

// projectDevices projects each device onto the fields every node shares:
// the PCIe link as trained (pcie.link, marked when below the maximum) and
// as the maximum (pcie.max); firmware by file name (firmware.<name>);
// partitions as a count; amdgpu_sysfs, "read" or "not read", where the
// device has a drm_device field; every other field but gpuPerNode as it
// is, the amdgpu ones only where they were read.
func projectDevices(list []any) []gpuDevice {
	devs := make([]gpuDevice, len(list))
	for i, dv := range list {
		m, _ := dv.(object)
		d := gpuDevice{label: "#" + strconv.Itoa(i), read: true, raw: m, attrs: make(object, 0, len(m)+12)}
		if p, ok := m.Get("pci"); ok {
			if s, ok := p.(string); ok {
				d.label = s
			}
		}
		drm, hasDRM := m.Get("drm_device")
		if hasDRM && drm == nil {
			d.read = false
			d.reason, _ = m.Get("drm_reason")
		}
		for _, e := range m {
			if slices.Contains(gpuPerNode, e.Key) || (!d.read && slices.Contains(amdgpuAttrs, e.Key)) {
				continue
			}
			switch e.Key {
			case "pcie":
				link, maximum := pcieLink(e.Value)
				d.set("pcie.link", link)
				d.set("pcie.max", maximum)
			case "firmware":
				l, _ := e.Value.([]any)
				for _, f := range l {
					fm, _ := f.(object)
					n, _ := fm.Get("name")
					if name, ok := n.(string); ok {
						version, _ := fm.Get("version")
						d.set("firmware."+name, version)
					}
				}
			case "partitions":
				v := e.Value
				if l, ok := v.([]any); ok {
					v = number(strconv.Itoa(len(l)))
				}
				d.set(e.Key, v)
			default:
				d.set(e.Key, e.Value)
			}
		}
		if hasDRM {
			d.set("amdgpu_sysfs", either(d.read, "read", "not read"))
		}
		devs[i] = d
	}
	return devs
}

// set appends a projected attribute.
func (d *gpuDevice) set(key string, v any) {
	d.attrs = append(d.attrs, object{{Key: key, Value: v}}...)
}

// fromAMDGPU reports whether a projected attribute comes from amdgpu's
// sysfs (amdgpuAttrs): pcie.link and firmware.sos do.
func fromAMDGPU(attr string) bool {
	base, _, _ := strings.Cut(attr, ".")
	return slices.Contains(amdgpuAttrs, base)
}

// holds reports whether d takes part in attr's spread, and its value: a
// device lacking a kfd field, or a firmware file, reads null; one whose
// amdgpu sysfs was not read takes no part in an amdgpu field.
func (d gpuDevice) holds(attr string) (any, bool) {
	if v, ok := d.attrs.Get(attr); ok {
		return v, true
	}
	return nil, d.read || !fromAMDGPU(attr)
}

// attrNames are the projected attributes of devs, in first-seen order.
func attrNames(devs ...[]gpuDevice) []string {
	var names []string
	for _, list := range devs {
		for _, d := range list {
			for _, e := range d.attrs {
				if !slices.Contains(names, e.Key) {
					names = append(names, e.Key)
				}
			}
		}
	}
	return names
}

// spreadsUnder is one field per projected attribute over the devices,
// its path prefix and the attribute's name.
func spreadsUnder(prefix string, devs []gpuDevice) []gpuField {
	var out []gpuField
	for _, name := range attrNames(devs) {
		s := spreadOf(devs, name)
		if len(s) > 0 {
			out = append(out, gpuField{path: prefix + name, key: s.key(), spread: s})
		}
	}
	return out
}

// share is one value of a device attribute and the devices holding it.
type share struct {
	value any
	key   string // compact(value)
	devs  []string
}

// spread is one attribute over the devices: each distinct value with the
// devices holding it, the commonest first, ties in value order (never in
// address order, which another slot would change).
type spread []share

// spreadOf is attr over the devices that take part in it (holds).
func spreadOf(devs []gpuDevice, attr string) spread {
	var s spread
	for _, d := range devs {
		if v, ok := d.holds(attr); ok {
			s.add(v, d.label)
		}
	}
	s.sort()
	return s
}

// add counts dev under v.
func (s *spread) add(v any, dev string) {
	k := compact(v)
	i := slices.IndexFunc(*s, func(x share) bool { return x.key == k })
	if i < 0 {
		*s = append(*s, share{value: v, key: k})
		i = len(*s) - 1
	}
	(*s)[i].devs = append((*s)[i].devs, dev)
}

// sort puts the commonest value first, ties in value order.
func (s spread) sort() {
	slices.SortStableFunc(s, func(a, b share) int {
		return cmp.Or(len(b.devs)-len(a.devs), strings.Compare(a.key, b.key))
	})
}

// key is the spread's comparison key: the value (shown) when every device
// agrees, else each value with its count, [{"value":…,"count":…},…].
// The devices are not part of it.
func (s spread) key() string {
	if len(s) == 1 {
		return shown(s[0].value)
	}
	list := make([]any, len(s))
	for i, sh := range s {
		list[i] = object{{Key: "value", Value: sh.value}, {Key: "count", Value: number(strconv.Itoa(len(sh.devs)))}}
	}
	return compact(list)
}

// value is the spread as a difference shows it. The JSON is structured,
// [{"value":…,"count":…,"devices":[…]},…], whatever the spread; the text
// is the value when every device agrees, else "A ×6; B ×2 (0000:a5:00.0,
// 0000:b5:00.0)", the devices after every value but the first. With
// named (the devices of one machine that changed), every value names its
// devices, but for one value over all the machine's devices (all).
func (s spread) value(named bool, all int) Value {
	list := make([]any, len(s))
	var b strings.Builder
	for i, sh := range s {
		devs := make([]any, len(sh.devs))
		for j, d := range sh.devs {
			devs[j] = d
		}
		list[i] = object{{Key: "value", Value: sh.value}, {Key: "count", Value: number(strconv.Itoa(len(sh.devs)))}, {Key: "devices", Value: devs}}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(valueText(sh.value))
		switch {
		case named && len(sh.devs) == all && len(s) == 1:
		case named || i > 0:
			if len(s) > 1 {
				b.WriteString(" ×" + strconv.Itoa(len(sh.devs)))
			}
			b.WriteString(" (" + strings.Join(sh.devs, ", ") + ")")
		case len(s) > 1:
			b.WriteString(" ×" + strconv.Itoa(len(sh.devs)))
		}
	}
	return Value{Present: true, JSON: compact(list), text: b.String()}
}

// valueText is a value for people: a string as it is, else shown.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return shown(v)
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
	if belowMax(cs, cw, ms, mw) {
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

// belowMax is schema's below-max rule (GPUPCIe.BelowMax) over a decoded
// link: speeds are text, widths integers; anything else is unknown.
func belowMax(cs, cw, ms, mw any) bool {
	text := func(v any) *string {
		if x, ok := v.(string); ok {
			return &x
		}
		return nil
	}
	width := func(v any) *int {
		if x, ok := v.(number); ok {
			if n, err := strconv.Atoi(string(x)); err == nil {
				return &n
			}
		}
		return nil
	}
	p := schema.GPUPCIe{CurrentLinkSpeed: text(cs), CurrentLinkWidth: width(cw), MaxLinkSpeed: text(ms), MaxLinkWidth: width(mw)}
	return p.BelowMax()
}
