package brief

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"aorta-probe/schema"
)

// gpusCell is the brief's GPU line (docs/usage.md#the-brief---summary)
// from probe_provenance.gpus (docs/hardware.md): the physical GPUs by
// model, the partition modes, partitions, XGMI hives, VBIOS, VRAM per GPU
// and the PCIe link, e.g. "8 × gfx942 (AMD Instinct MI308X) CPX/NPS1,
// 32 partitions, 1 XGMI hive, VBIOS 113-M3080202-100, VRAM 192 GiB, PCIe
// 32.0 GT/s x16". Where the devices differ, a value is each distinct one
// with its count, the commonest first ("6×CPX+2×SPX"); a value no device
// has is left out. The amdgpu values (modes, VBIOS, VRAM, link) are the
// devices' whose amdgpu sysfs was read; the line ends with the devices
// whose was not, and why, then the devices whose values were refused or
// kept apart, with their reasons (devices[].reasons). Where a kfd node
// could not be read (no count is sure), the line says what was read, "at
// least …", then why.
func gpusCell(g schema.GPUs) string {
	switch {
	case g.PhysicalCount == nil && len(g.Devices) == 0:
		if g.Reason != nil && *g.Reason != "" {
			return "not read: " + *g.Reason
		}
		return "not read"
	case g.PhysicalCount != nil && *g.PhysicalCount == 0:
		return "none (kfd lists no GPU)"
	}
	devs := g.Devices
	var read []schema.GPUDevice
	for _, d := range devs {
		if d.DRMDevice != nil {
			read = append(read, d)
		}
	}
	head := ""
	switch {
	case len(devs) > 0:
		head = models(devs)
	case g.PhysicalCount != nil:
		head = plural(*g.PhysicalCount, "GPU")
	}
	if g.PhysicalCount == nil {
		head = "at least " + head
	}
	compute := mixed(read, func(d schema.GPUDevice) *string { return d.ComputePartition })
	memory := mixed(read, func(d schema.GPUDevice) *string { return d.MemoryPartition })
	if compute != "" || memory != "" {
		head += " " + orQs(compute) + "/" + orQs(memory)
	}
	parts := []string{head}
	if g.PartitionCount != nil {
		parts = append(parts, plural(*g.PartitionCount, "partition"))
	}
	parts = append(parts, hivesCell(g.Hives, len(devs)))
	if v := mixed(read, func(d schema.GPUDevice) *string { return d.VBIOSVersion }); v != "" {
		parts = append(parts, "VBIOS "+v)
	}
	if v := mixed(read, func(d schema.GPUDevice) *string { return gib(d.VRAMBytes) }); v != "" {
		parts = append(parts, "VRAM "+v)
	}
	if v := mixed(read, func(d schema.GPUDevice) *string { return link(d.PCIe) }); v != "" {
		below := 0
		for _, d := range read {
			if d.PCIe.BelowMax() {
				below++
			}
		}
		if below > 0 {
			v += fmt.Sprintf(" (%d below max)", below)
		}
		parts = append(parts, "PCIe "+v)
	}
	if s := unread(devs, len(read)); s != "" {
		parts = append(parts, s)
	}
	if s := explained(devs); s != "" {
		parts = append(parts, s)
	}
	if g.PhysicalCount == nil && g.Reason != nil && *g.Reason != "" {
		parts = append(parts, "count unknown: "+*g.Reason)
	}
	return strings.Join(parts, ", ")
}

// unread says which devices' amdgpu sysfs was not read, and why: "no
// amdgpu sysfs (reason)" when none was, else "amdgpu sysfs not read on 1
// GPU (0000:a4:00.0: reason)"; "" when every one was.
func unread(devs []schema.GPUDevice, read int) string {
	if len(devs) == 0 || read == len(devs) {
		return ""
	}
	if read == 0 {
		why := "no amdgpu sysfs"
		if r := devs[0].DRMReason; r != nil && *r != "" {
			why += " (" + *r + ")"
		}
		return why
	}
	var which []string
	for _, d := range devs {
		if d.DRMDevice == nil {
			w := orQ(d.PCI)
			if d.DRMReason != nil && *d.DRMReason != "" {
				w += ": " + *d.DRMReason
			}
			which = append(which, w)
		}
	}
	return "amdgpu sysfs not read on " + plural(len(which), "GPU") + " (" + strings.Join(which, "; ") + ")"
}

// explained names the devices that carry reasons (a value outside the
// kernel's vocabulary, refused; partitions kept apart; conflicting hive
// ids: docs/hardware.md) with them: "1 GPU with reasons (0000:a4:00.0:
// …)"; "" when none has any. A "?" in the line above is then explained.
func explained(devs []schema.GPUDevice) string {
	var which []string
	for _, d := range devs {
		if d.Reasons != nil && len(*d.Reasons) > 0 {
			which = append(which, orQ(d.PCI)+": "+strings.Join(*d.Reasons, "; "))
		}
	}
	if len(which) == 0 {
		return ""
	}
	return plural(len(which), "GPU") + " with reasons (" + strings.Join(which, "; ") + ")"
}

// models is the devices by model: "8 × gfx942 (AMD Instinct MI308X)",
// several joined by " + ", the commonest first. A device whose amdgpu
// sysfs was not read (no product name) counts under the product name the
// read devices of its gfx target and PCI device id agree on.
func models(devs []schema.GPUDevice) string {
	named := map[string]*string{} // gfx target and device id → product name, nil when they disagree
	for _, d := range devs {
		if d.DRMDevice == nil || d.ProductName == nil || *d.ProductName == "" {
			continue
		}
		k := orQ(d.GfxTarget) + " " + orQ(d.DeviceID)
		if p, ok := named[k]; ok && (p == nil || *p != *d.ProductName) {
			named[k] = nil
			continue
		}
		named[k] = d.ProductName
	}
	var out []string
	for _, c := range counted(devs, func(d schema.GPUDevice) *string {
		m := orQ(d.GfxTarget)
		name := d.ProductName
		if d.DRMDevice == nil && (name == nil || *name == "") {
			name = named[orQ(d.GfxTarget)+" "+orQ(d.DeviceID)]
		}
		if name != nil && *name != "" {
			m += " (" + *name + ")"
		}
		return &m
	}) {
		out = append(out, fmt.Sprintf("%d × %s", c.n, c.v))
	}
	return strings.Join(out, " + ")
}

type count struct {
	v string
	n int
}

// counted is each distinct non-nil value of f over devs with how many
// devices have it, the commonest first, ties in device (PCI) order.
func counted(devs []schema.GPUDevice, f func(schema.GPUDevice) *string) []count {
	var out []count
	for _, d := range devs {
		p := f(d)
		if p == nil {
			continue
		}
		i := slices.IndexFunc(out, func(c count) bool { return c.v == *p })
		if i < 0 {
			out = append(out, count{*p, 0})
			i = len(out) - 1
		}
		out[i].n++
	}
	slices.SortStableFunc(out, func(a, b count) int { return b.n - a.n })
	return out
}

// mixed is f's value when every device agrees, else each value with its
// count ("6×CPX+2×SPX", "7×113-M3080202-100+1×?"); "" when no device has
// one.
func mixed(devs []schema.GPUDevice, f func(schema.GPUDevice) *string) string {
	if !slices.ContainsFunc(devs, func(d schema.GPUDevice) bool { return f(d) != nil }) {
		return ""
	}
	cs := counted(devs, func(d schema.GPUDevice) *string {
		if v := f(d); v != nil {
			return v
		}
		q := "?"
		return &q
	})
	if len(cs) == 1 {
		return cs[0].v
	}
	var out []string
	for _, c := range cs {
		out = append(out, strconv.Itoa(c.n)+"×"+c.v)
	}
	return strings.Join(out, "+")
}

// hivesCell is "1 XGMI hive" (every GPU in it), "2 XGMI hives (4+4)", "1
// XGMI hive (4)" or "no XGMI hive".
func hivesCell(hives []schema.GPUHive, devices int) string {
	if len(hives) == 0 {
		return "no XGMI hive"
	}
	s := plural(len(hives), "XGMI hive")
	if len(hives) == 1 && len(hives[0].Devices) == devices {
		return s
	}
	var sizes []string
	for _, h := range hives {
		sizes = append(sizes, strconv.Itoa(len(h.Devices)))
	}
	return s + " (" + strings.Join(sizes, "+") + ")"
}

// gib is bytes in GiB, to one decimal where it is not whole ("192 GiB",
// "63.9 GiB").
func gib(b *int64) *string {
	if b == nil {
		return nil
	}
	s := strconv.FormatFloat(math.Round(float64(*b)/(1<<30)*10)/10, 'f', -1, 64) + " GiB"
	return &s
}

// link is the PCIe link as trained, "32.0 GT/s x16" (sysfs writes the
// speed as "32.0 GT/s PCIe"); nil when neither half is known.
func link(p schema.GPUPCIe) *string {
	if p.CurrentLinkSpeed == nil && p.CurrentLinkWidth == nil {
		return nil
	}
	s := strings.TrimSuffix(orQ(p.CurrentLinkSpeed), " PCIe") + " x" + orQInt(p.CurrentLinkWidth)
	return &s
}

// plural is "1 GPU", "8 GPUs".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
