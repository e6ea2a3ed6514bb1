package testdoc

import (
	"fmt"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TuningNode names the hand-built probe_provenance.tuning blocks of issue
// 34's three scenarios.
type TuningNode string

const (
	// MI300XFollowing is an 8 × MI300X node set up as AMD's MI300X system
	// optimization guide says: no deviation.
	MI300XFollowing TuningNode = "mi300x-following"
	// MI300XDeviating is that node off the guide in four settings: NUMA
	// auto-balancing on, no pci=realloc=off, no iommu=pt (so the GPUs'
	// IOMMU groups translate, DMA-FQ), and one GPU whose visible VRAM is
	// below its total (large BAR off).
	MI300XDeviating TuningNode = "mi300x-deviating"
	// MI350XNode is an 8 × MI350X node judged by the MI350 rules (the
	// System Acceptance pages), off them in one: no pci=bfsort.
	MI350XNode TuningNode = "mi350x"
)

// The guides and sections the blocks cite, by name as tuning.md does.
const (
	GuideMI300X = "AMD Instinct MI300X system optimization"
	GuideSAKP   = "AMD Instinct System Acceptance: kernel parameters"
)

// TuningDeviatingSettings are the four settings MI300XDeviating breaks,
// in the rule table's order.
var TuningDeviatingSettings = []string{"numa_balancing", "cmdline_pci_realloc_off", "cmdline_iommu_pt", "gpus.vis_vram_total_bytes"}

// setting is one {value, source, status, errno} entry (schema.TuningValue).
func setting(value any, source, status string, errno any) Object {
	return Object{{Key: "value", Value: value}, {Key: "source", Value: source}, {Key: "status", Value: status}, {Key: "errno", Value: errno}}
}

func read(value any, source string) Object { return setting(value, source, "read", nil) }

// Tuning is the probe_provenance.tuning block (schema.Tuning, in its key
// order) of node n of a scenario: the GPUs at the addresses of GPUs' eight
// devices, node > 0 giving them another XGMI hive id (per node). With
// state, the block carries --tuning-state's per-GPU values.
func Tuning(t testing.TB, kind TuningNode, node int, state bool) Object {
	t.Helper()
	num := func(s string) any { return pyjson.Number(s) }
	family, product, checked := "MI300", "MI300X", "14"
	vram := "206141652992"
	deviating := kind == MI300XDeviating
	switch kind {
	case MI300XFollowing, MI300XDeviating:
	case MI350XNode:
		family, product, checked, vram = "MI350", "MI350X", "15", "309237645312"
	default:
		t.Fatalf("testdoc.Tuning: kind %q", kind)
	}
	pick := func(ok bool, a, b any) any {
		if ok {
			return a
		}
		return b
	}
	nodeSettings := Object{
		{Key: "numa_balancing", Value: read(num(pick(deviating, "1", "0").(string)), "/proc/sys/kernel/numa_balancing")},
		{Key: "cmdline_pci_realloc_off", Value: read(!deviating, "/proc/cmdline")},
		{Key: "cmdline_pci_bfsort", Value: read(kind != MI350XNode, "/proc/cmdline")},
		{Key: "cmdline_iommu_pt", Value: read(!deviating, "/proc/cmdline")},
		{Key: "iommu_gpu_group_type", Value: read(pick(deviating, "DMA-FQ", "identity"), "/sys/kernel/iommu_groups/11/type")},
		{Key: "thp_enabled", Value: read("madvise", "/sys/kernel/mm/transparent_hugepage/enabled")},
		{Key: "smt_active", Value: read(true, "/sys/devices/system/cpu/smt/active")},
		{Key: "online_cpus", Value: read(num("256"), "/sys/devices/system/cpu/online")},
		{Key: "pcie_aspm_policy", Value: setting(nil, "/sys/module/pcie_aspm/parameters/policy", "absent", nil)},
		{Key: "cpufreq_governor", Value: read("performance", "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor")},
		{Key: "mem_total_bytes", Value: read(num("2164173422592"), "/proc/meminfo")},
		{Key: "amdgpu_initstate", Value: read("live", "/sys/module/amdgpu/initstate")},
		{Key: "amdgpu_cwsr_enable", Value: setting(nil, "/sys/module/amdgpu/parameters/cwsr_enable", "unreadable", "EACCES")},
	}
	var gpusList, stateList []any
	for i, g := range mi308x {
		d := "/sys/bus/pci/devices/" + g.pci + "/"
		vis := vram
		if deviating && i == 2 {
			vis = "268435456"
		}
		gpusList = append(gpusList, Object{
			{Key: "pci", Value: g.pci},
			{Key: "settings", Value: Object{
				{Key: "performance_level", Value: read("auto", d+"power_dpm_force_performance_level")},
				{Key: "power_cap_uw", Value: read(num("750000000"), d+"hwmon/hwmon3/power1_cap")},
				{Key: "power_cap_max_uw", Value: read(num("750000000"), d+"hwmon/hwmon3/power1_cap_max")},
				{Key: "compute_partition", Value: read("SPX", d+"current_compute_partition")},
				{Key: "memory_partition", Value: read("NPS1", d+"current_memory_partition")},
				{Key: "sclk_max_mhz", Value: read(num("2100"), d+"pp_dpm_sclk")},
				{Key: "vram_total_bytes", Value: read(num(vram), d+"mem_info_vram_total")},
				{Key: "vis_vram_total_bytes", Value: read(num(vis), d+"mem_info_vis_vram_total")},
				{Key: "numa_node", Value: read(num(fmt.Sprint(i/4)), d+"numa_node")},
				{Key: "xgmi_hive_id", Value: read(fmt.Sprint(node+1)+"095653680343411291", d+"xgmi_hive_info/xgmi_hive_id")},
			}},
		})
		stateList = append(stateList, Object{
			{Key: "pci", Value: g.pci},
			{Key: "values", Value: Object{
				{Key: "gpu_busy_percent", Value: read(num(fmt.Sprint(i)), d+"gpu_busy_percent")},
				{Key: "power_uw", Value: read(num("173000000"), d+"hwmon/hwmon3/power1_input")},
				{Key: "temp_junction_mc", Value: read(num("41000"), d+"hwmon/hwmon3/temp2_input")},
				{Key: "pcie_replay_count", Value: read(num(pick(i == 5, "3", "0").(string)), d+"pcie_replay_count")},
				{Key: "vram_used_bytes", Value: read(num("12582912"), d+"mem_info_vram_used")},
				{Key: "mem_busy_percent", Value: setting(nil, d+"mem_busy_percent", "unreadable", "EPERM")},
			}},
		})
	}
	var deviations []any
	dev := func(setting, scope, value, guideValue, guide, section, why string) {
		deviations = append(deviations, Object{
			{Key: "setting", Value: setting}, {Key: "scope", Value: scope}, {Key: "value", Value: value},
			{Key: "guide_value", Value: guideValue}, {Key: "guide", Value: guide}, {Key: "section", Value: section},
			{Key: "family", Value: family}, {Key: "why", Value: why},
		})
	}
	if deviating {
		dev("numa_balancing", "node", "1", "0", GuideMI300X, "Disable NUMA auto-balancing", "the kernel migrates pages behind running work")
		dev("cmdline_pci_realloc_off", "node", "absent", "pci=realloc=off", GuideMI300X, "GRUB settings", "lets Linux see every GPU")
		dev("cmdline_iommu_pt", "node", "absent", "iommu=pt", GuideMI300X, "GRUB settings", "the GPUs' DMA is translated by the IOMMU")
		dev("gpus.vis_vram_total_bytes", mi308x[2].pci, "268435456", vram, GuideMI300X, "BIOS settings", "large BAR off: the CPU sees part of the VRAM")
	}
	if kind == MI350XNode {
		dev("cmdline_pci_bfsort", "node", "absent", "pci=bfsort", GuideSAKP, "Kernel parameters", "predictable GPU order")
	}
	var st any
	if state {
		st = Object{{Key: "gpus", Value: stateList}}
	}
	if deviations == nil {
		deviations = []any{}
	}
	return Object{
		{Key: "family", Value: family},
		{Key: "product", Value: product},
		{Key: "node", Value: nodeSettings},
		{Key: "gpus", Value: gpusList},
		{Key: "checked", Value: num(checked)},
		{Key: "deviations", Value: deviations},
		{Key: "state", Value: st},
		{Key: "reason", Value: nil},
	}
}

// SetTuning sets probe_provenance.tuning (Tuning).
func SetTuning(b Object) Edit { return Set("probe_provenance.tuning", b) }
