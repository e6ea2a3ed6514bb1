package triage

import (
	"slices"
	"strconv"
	"strings"
)

// hardwareDifferences ranks the differences of the two documents'
// probe_provenance.gpus (gpus.go), compared only when both carry the
// block (like rocm_installs: a document of an older aorta-probe has
// none). The block fields (counts, hive sizes, reason) are compared as
// they are. The devices: from one machine and boot (sameMachine), each
// device that appeared or disappeared is a difference of its own, by PCI
// address, and each attribute lists the devices it changed on, with
// their old and new values; from two machines (or where it cannot be
// told), an attribute differs when its values or their counts do, the
// addresses only illustrating. Either way a device whose amdgpu sysfs was
// read on one side only is one difference, with its drm_reason, not one
// null per amdgpu attribute.
func hardwareDifferences(a, b *Document) []Difference {
	fa, da := gpuFields(a)
	fb, db := gpuFields(b)
	if fa == nil || fb == nil {
		return nil
	}
	var out []Difference
	add := func(key, rulePath string, av, bv Value) {
		rank, group, why := classify(strings.Split(rulePath, "."))
		out = append(out, Difference{Key: key, Group: group, Rank: rank, A: av, B: bv, Why: why})
	}
	inB := make(map[string]gpuField, len(fb))
	for _, f := range fb {
		inB[f.path] = f
	}
	inA := make(map[string]bool, len(fa))
	var devicePaths []string
	for _, f := range fa {
		inA[f.path] = true
		if f.spread != nil {
			devicePaths = append(devicePaths, f.path)
			continue
		}
		g, ok := inB[f.path]
		if !ok || g.key != f.key {
			add(f.path, f.path, leafValue(f.path, f.key), fieldValue(g, ok))
		}
	}
	for _, f := range fb {
		switch {
		case inA[f.path]:
		case f.spread != nil:
			devicePaths = append(devicePaths, f.path)
		default:
			add(f.path, f.path, Value{}, leafValue(f.path, f.key))
		}
	}
	// Without devices on one side (no kfd, no GPU), the counts and the
	// reason say it; every device field reading "absent" would bury them.
	if len(da) == 0 || len(db) == 0 {
		return out
	}
	if sameMachine(a, b) {
		deviceChanges(da, db, add)
	} else {
		inA := map[string]gpuField{}
		for _, f := range fa {
			inA[f.path] = f
		}
		unread := func(devs []gpuDevice) bool {
			return slices.ContainsFunc(devs, func(d gpuDevice) bool { return !d.read })
		}
		ua, ub := unread(da), unread(db)
		for _, p := range devicePaths {
			x, aok := inA[p]
			y, bok := inB[p]
			switch {
			case p == devicesKey+"amdgpu_sysfs", aok && bok && x.key == y.key:
				continue
			case aok && bok && fromAMDGPU(strings.TrimPrefix(p, devicesKey)) &&
				(ub && y.spread.within(x.spread) || ua && x.spread.within(y.spread)):
				// The devices read agree with the other side: the ones
				// not read are unreadChanges' rows.
				continue
			}
			add(p, p, spreadValue(x, aok), spreadValue(y, bok))
		}
	}
	unreadChanges(da, db, add)
	return out
}

// within reports whether every value of s is held by at most as many
// devices in t: s, missing devices whose amdgpu sysfs was not read, may
// be t.
func (s spread) within(t spread) bool {
	for _, sh := range s {
		i := slices.IndexFunc(t, func(x share) bool { return x.key == sh.key })
		if i < 0 || len(t[i].devs) < len(sh.devs) {
			return false
		}
	}
	return true
}

// fieldValue is a block field's key as a Value, absent when !ok.
func fieldValue(f gpuField, ok bool) Value {
	if !ok {
		return Value{}
	}
	return leafValue(f.path, f.key)
}

// spreadValue is a device attribute's spread as a Value, absent when !ok.
func spreadValue(f gpuField, ok bool) Value {
	if !ok {
		return Value{}
	}
	return f.spread.value(false, 0)
}

// sameMachine reports whether both documents record one boot fingerprint
// (probe_provenance.identity.boot): one machine and boot, on which a PCI
// address names one device.
func sameMachine(a, b *Document) bool {
	ia, ib := identityOf(a), identityOf(b)
	return ia.boot != nil && ib.boot != nil && *ia.boot == *ib.boot
}

// deviceChanges compares the devices of one machine by PCI address: a
// difference per device that appeared or disappeared (ranked as
// physical_count), one per attribute that changed on a device both list,
// naming the devices it changed on, and one for the devices that left or
// joined an XGMI hive (ranked as hives).
func deviceChanges(da, db []gpuDevice, add func(key, rulePath string, av, bv Value)) {
	// byLabel keys each device by its address and, for an address a
	// broken document repeats, its occurrence.
	byLabel := func(devs []gpuDevice) ([]string, map[string]gpuDevice) {
		keys, m, seen := make([]string, len(devs)), make(map[string]gpuDevice, len(devs)), map[string]int{}
		for i, d := range devs {
			keys[i] = d.label + "\x00" + strconv.Itoa(seen[d.label])
			seen[d.label]++
			m[keys[i]] = d
		}
		return keys, m
	}
	ka, ma := byLabel(da)
	kb, mb := byLabel(db)
	var paired [][2]gpuDevice
	for i, d := range da {
		if e, ok := mb[ka[i]]; ok {
			paired = append(paired, [2]gpuDevice{d, e})
		} else {
			add(gpusKey+".devices["+d.label+"]", gpusKey+".physical_count", d.value(), Value{})
		}
	}
	for i, d := range db {
		if _, ok := ma[kb[i]]; !ok {
			add(gpusKey+".devices["+d.label+"]", gpusKey+".physical_count", Value{}, d.value())
		}
	}
	for _, name := range attrNames(da, db) {
		if name == "amdgpu_sysfs" {
			continue
		}
		var sa, sb spread
		for _, p := range paired {
			va, aok := p[0].holds(name)
			vb, bok := p[1].holds(name)
			if aok && bok && compact(va) != compact(vb) {
				sa.add(va, p[0].label)
				sb.add(vb, p[1].label)
			}
		}
		if len(sa) > 0 {
			sa.sort()
			sb.sort()
			add(devicesKey+name, devicesKey+name, sa.value(true, len(paired)), sb.value(true, len(paired)))
		}
	}
	hiveChanges(da, db, paired, add)
}

// hiveChanges adds one difference for the devices of one machine that
// left or joined an XGMI hive: a device whose hive shares fewer than half
// of its members (itself included) with its hive on the other side. The
// members that stay together when one leaves keep their hive.
func hiveChanges(da, db []gpuDevice, paired [][2]gpuDevice, add func(key, rulePath string, av, bv Value)) {
	ha, hb := hiveMembers(da), hiveMembers(db)
	var sa, sb spread
	for _, p := range paired {
		x, y := ha[p[0].label], hb[p[1].label]
		common := 0
		for _, m := range x {
			if slices.Contains(y, m) {
				common++
			}
		}
		if 2*common < max(len(x), len(y)) {
			sa.add(hiveText(x), p[0].label)
			sb.add(hiveText(y), p[1].label)
		}
	}
	if len(sa) > 0 {
		sa.sort()
		sb.sort()
		add(devicesKey+"hive", gpusKey+".hives", sa.value(true, len(paired)), sb.value(true, len(paired)))
	}
}

// hiveMembers is each device's XGMI hive: the addresses of the devices
// sharing its hive_id, itself included; none for a device without one.
func hiveMembers(devs []gpuDevice) map[string][]string {
	byHive := map[string][]string{}
	for _, d := range devs {
		if h, ok := d.raw.Get("hive_id"); ok && h != nil {
			byHive[compact(h)] = append(byHive[compact(h)], d.label)
		}
	}
	out := map[string][]string{}
	for _, members := range byHive {
		for _, m := range members {
			out[m] = members
		}
	}
	return out
}

func hiveText(members []string) string {
	if len(members) == 0 {
		return "no hive"
	}
	return "hive of " + strconv.Itoa(len(members))
}

// unreadChanges adds one difference per device whose amdgpu sysfs was
// not read on one side, or not read for another reason: "read" against
// "not read: <drm_reason>", by PCI address.
func unreadChanges(da, db []gpuDevice, add func(key, rulePath string, av, bv Value)) {
	var labels []string
	for _, list := range [][]gpuDevice{da, db} {
		for _, d := range list {
			if !d.read && !slices.Contains(labels, d.label) {
				labels = append(labels, d.label)
			}
		}
	}
	status := func(devs []gpuDevice, label string) Value {
		i := slices.IndexFunc(devs, func(d gpuDevice) bool { return d.label == label })
		if i < 0 {
			return Value{}
		}
		if devs[i].read {
			return Value{Present: true, JSON: `{"amdgpu_sysfs":"read"}`, text: "read"}
		}
		o := object{{Key: "amdgpu_sysfs", Value: "not read"}, {Key: "drm_reason", Value: devs[i].reason}}
		return Value{Present: true, JSON: compact(o), text: "not read: " + valueText(devs[i].reason)}
	}
	for _, l := range labels {
		if av, bv := status(da, l), status(db, l); av != bv {
			add(gpusKey+".devices["+l+"].amdgpu_sysfs", devicesKey+"amdgpu_sysfs", av, bv)
		}
	}
}

// value is a device that appeared or disappeared: its address and
// projected attributes as JSON; "gfx942 (AMD Instinct MI308X), 4
// partitions" for people.
func (d gpuDevice) value() Value {
	o := append(object{{Key: "pci", Value: d.label}}, d.attrs...)
	var parts []string
	model := ""
	if v, _ := d.attrs.Get("gfx_target"); v != nil {
		model = valueText(v)
	}
	if v, _ := d.attrs.Get("product_name"); v != nil {
		model = strings.TrimSpace(model + " (" + valueText(v) + ")")
	}
	if model != "" {
		parts = append(parts, model)
	}
	if v, _ := d.attrs.Get("partitions"); v != nil {
		parts = append(parts, valueText(v)+" partitions")
	}
	if len(parts) == 0 {
		parts = append(parts, "a GPU")
	}
	return Value{Present: true, JSON: compact(o), text: strings.Join(parts, ", ")}
}

// leafValue is a field's comparison key as a Value; a spread's key
// ([{"value":…,"count":…},…]) reads "A ×6; B ×2" for people.
func leafValue(path, s string) Value {
	v := Value{Present: true, JSON: s, Digest: strings.HasPrefix(s, "<")}
	if path == tuningDeviationsKey {
		v.text = deviationsText(s)
		return v
	}
	if !strings.HasPrefix(path, devicesKey) && !strings.HasPrefix(path, tuningGPUsKey) || !strings.HasPrefix(s, `[{"value":`) {
		return v
	}
	x, err := decodeJSON(s)
	if err != nil {
		return v
	}
	list, _ := x.([]any)
	parts := make([]string, 0, len(list))
	for _, e := range list {
		o, _ := e.(object)
		val, _ := o.Get("value")
		n, _ := o.Get("count")
		parts = append(parts, valueText(val)+" ×"+valueText(n))
	}
	v.text = strings.Join(parts, "; ")
	return v
}
