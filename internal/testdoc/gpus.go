package testdoc

import (
	"fmt"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// mi308x are the eight GPUs of the shared fixture mi308x-cpx
// (/work/shared/fixtures/kfd: a real kfd topology), in PCI order: the
// address from kfd domain and location_id, the kfd unique_id.
var mi308x = []struct{ pci, uniqueID string }{
	{"0000:0a:00.0", "598046273873802902"},
	{"0000:80:00.0", "11803749423592941193"},
	{"0000:a4:00.0", "10187445671099294242"},
	{"0000:c8:00.0", "9604994527082705072"},
	{"0001:0b:00.0", "17466021589395472075"},
	{"0001:81:00.0", "1044926823201815193"},
	{"0001:a5:00.0", "13372828617950681944"},
	{"0001:c9:00.0", "6576958293045616595"},
}

// GPUDeviceEdit changes device i (PCI order) of a GPUs block.
type GPUDeviceEdit func(t testing.TB, i int, d Object) Object

// OnDevice sets path (dotted, within the device) to v on device i only.
func OnDevice(i int, path string, v any) GPUDeviceEdit {
	return func(t testing.TB, j int, d Object) Object {
		if j != i {
			return d
		}
		return setIn(t, d, strings.Split(path, "."), v, false)
	}
}

// GPUs is the probe_provenance.gpus block (schema.GPUs, in its key order)
// of an 8 × MI308X node: the kfd side from the shared fixture mi308x-cpx
// (addresses, unique_ids, hive, gfx942, 20 CUs and one XCC per
// partition, MEC firmware 149, SDMA 19), the amdgpu side as the kernel's
// amdgpu sysfs documentation describes it (product name, VBIOS, VRAM,
// partition modes, PCIe link, fw_version files; values made up). mode is
// the compute partition mode: "SPX" gives each GPU one partition of 4
// XCCs, "CPX" four of one. edits change single devices; top-level
// compute_partition is set only when the devices agree after them.
func GPUs(t testing.TB, mode string, edits ...GPUDeviceEdit) Object {
	t.Helper()
	return GPUsOnNode(t, 0, mode, edits...)
}

// GPUsOnNode is GPUs on another node of the same model: node > 0 gives
// the GPUs and the hive other serials (unique_id, hive_id: they differ
// between any two nodes), the PCI addresses stay.
func GPUsOnNode(t testing.TB, node int, mode string, edits ...GPUDeviceEdit) Object {
	t.Helper()
	serial := func(s string) string {
		if node == 0 {
			return s
		}
		return fmt.Sprint(node) + s[1:]
	}
	hive := serial("2095653680343411291")
	parts := map[string]int{"SPX": 1, "CPX": 4}[mode]
	if parts == 0 {
		t.Fatalf("testdoc.GPUs: mode %q, want SPX or CPX", mode)
	}
	n := func(s string) any { return pyjson.Number(s) }
	var devices, members []any
	kfdNode, total := 2, 0
	modes := map[any]bool{}
	for i, g := range mi308x {
		var partitions []any
		for p := range parts {
			partitions = append(partitions, Object{
				{Key: "node", Value: n(fmt.Sprint(kfdNode))},
				{Key: "render_minor", Value: n(fmt.Sprint(128 + 8*i + p))},
				{Key: "pci_function", Value: n(fmt.Sprint(p))},
				{Key: "num_xcc", Value: n(fmt.Sprint(4 / parts))},
				{Key: "cu_count", Value: n(fmt.Sprint(80 / parts))},
			})
			kfdNode++
		}
		total += parts
		d := mi308xDevice(i, serial(g.uniqueID), g.pci, hive, mode, partitions)
		for _, e := range edits {
			d = e(t, i, d)
		}
		m, _ := d.Get("compute_partition")
		modes[m] = true
		devices = append(devices, d)
		members = append(members, g.pci)
	}
	var agreed any = mode
	if len(modes) > 1 {
		agreed = nil
	}
	return Object{
		{Key: "physical_count", Value: n("8")},
		{Key: "partition_count", Value: n(fmt.Sprint(total))},
		{Key: "compute_partition", Value: agreed},
		{Key: "memory_partition", Value: "NPS1"},
		{Key: "hives", Value: []any{Object{{Key: "hive_id", Value: hive}, {Key: "devices", Value: members}}}},
		{Key: "source", Value: "/sys/class/kfd/kfd/topology/nodes"},
		{Key: "reason", Value: nil},
		{Key: "devices", Value: devices},
	}
}

// mi308xDevice is GPU i of GPUsOnNode before its edits: its serial
// uniqueID, PCI address pci, the hive's id, the compute partition mode
// and its partitions.
func mi308xDevice(i int, uniqueID, pci, hive, mode string, partitions []any) Object {
	n := func(s string) any { return pyjson.Number(s) }
	var fw []any
	for _, f := range [][2]string{{"mec", "0x00000095"}, {"rlc", "0x00000066"}, {"sdma", "0x00000013"}, {"smc", "0x00557a00"}, {"sos", "0x00240010"}} {
		fw = append(fw, Object{{Key: "name", Value: f[0]}, {Key: "version", Value: f[1]}})
	}
	return Object{
		{Key: "unique_id", Value: uniqueID},
		{Key: "pci", Value: pci},
		{Key: "gfx_target", Value: "gfx942"},
		{Key: "device_id", Value: "0x74a2"},
		{Key: "hive_id", Value: hive},
		{Key: "numa_node", Value: n(fmt.Sprint(i / 4))},
		{Key: "simd_count", Value: n("320")},
		{Key: "cu_count", Value: n("80")},
		{Key: "num_xcc", Value: n("4")},
		{Key: "fw_version", Value: n("149")},
		{Key: "sdma_fw_version", Value: n("19")},
		{Key: "product_name", Value: "AMD Instinct MI308X"},
		{Key: "vbios_version", Value: "113-M3080202-100"},
		{Key: "vram_bytes", Value: n("206141652992")},
		{Key: "compute_partition", Value: mode},
		{Key: "available_compute_partitions", Value: []any{"SPX", "CPX"}},
		{Key: "memory_partition", Value: "NPS1"},
		{Key: "available_memory_partitions", Value: []any{"NPS1"}},
		{Key: "pcie", Value: Object{
			{Key: "current_link_speed", Value: "32.0 GT/s PCIe"},
			{Key: "current_link_width", Value: n("16")},
			{Key: "max_link_speed", Value: "32.0 GT/s PCIe"},
			{Key: "max_link_width", Value: n("16")},
		}},
		{Key: "firmware", Value: fw},
		{Key: "drm_device", Value: fmt.Sprintf("/sys/class/drm/renderD%d/device", 128+8*i)},
		{Key: "drm_reason", Value: nil},
		{Key: "partitions", Value: partitions},
	}
}

// SetGPUs sets probe_provenance.gpus (GPUs).
func SetGPUs(g Object) Edit { return Set("probe_provenance.gpus", g) }
