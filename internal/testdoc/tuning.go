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

// Tuning is the probe_provenance.tuning block (schema.Tuning, in its key
// order: bare values, why a value is null in node_unread and
// gpus[].unread, where each is read once in sources) of node n of a
// scenario: the GPUs at the addresses of GPUs' eight devices, node > 0
// giving them another XGMI hive id (per node). With state, the block
// carries --tuning-state's per-GPU values.
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
	pick := func(ok bool, a, b string) string {
		if ok {
			return a
		}
		return b
	}
	nodeSettings, nodeUnread, sources := tuningNode(kind, deviating, pick)
	gpusList, stateList := tuningGPUs(node, deviating, vram, pick)
	deviations := tuningDeviations(kind, deviating, family, vram)
	var st any
	if state {
		st = Object{{Key: "gpus", Value: stateList}, {Key: "sources", Value: Object{
			{Key: "gpu_busy_percent", Value: "gpu_busy_percent"}, {Key: "power_uw", Value: "hwmon/hwmon*/power1_input"},
			{Key: "temp_junction_mc", Value: "hwmon/hwmon*/temp2_input"}, {Key: "pcie_replay_count", Value: "pcie_replay_count"},
			{Key: "vram_used_bytes", Value: "mem_info_vram_used"}, {Key: "mem_busy_percent", Value: "mem_busy_percent"},
			{Key: "ras_err_counts", Value: "ras/<block>_err_count"}, {Key: "aer_fatal", Value: "aer_dev_fatal"},
		}}}
	}
	if deviations == nil {
		deviations = []any{}
	}
	return Object{
		{Key: "family", Value: family},
		{Key: "product", Value: product},
		{Key: "node", Value: nodeSettings},
		{Key: "node_unread", Value: nodeUnread},
		{Key: "gpus", Value: gpusList},
		{Key: "sources", Value: sources},
		{Key: "checked", Value: num(checked)},
		{Key: "deviations", Value: deviations},
		{Key: "state", Value: st},
		{Key: "reason", Value: nil},
	}
}

// tuningNode is Tuning's node settings, why two of them are null, and
// where each setting is read.
func tuningNode(kind TuningNode, deviating bool, pick func(bool, string, string) string) (Object, Object, Object) {
	num := func(s string) any { return pyjson.Number(s) }
	nodeSettings := Object{
		{Key: "numa_balancing", Value: num(pick(deviating, "1", "0"))},
		{Key: "cmdline_pci_realloc_off", Value: !deviating},
		{Key: "cmdline_pci_bfsort", Value: kind != MI350XNode},
		{Key: "cmdline_iommu_pt", Value: !deviating},
		{Key: "iommu_gpu_group_type", Value: pick(deviating, "DMA-FQ", "identity")},
		{Key: "thp_enabled", Value: "madvise"},
		{Key: "smt_active", Value: true},
		{Key: "online_cpus", Value: num("256")},
		{Key: "pcie_aspm_policy", Value: nil},
		{Key: "cpufreq_governor", Value: "performance"},
		{Key: "mem_total_bytes", Value: num("2164173422592")},
		{Key: "amdgpu_initstate", Value: "live"},
		{Key: "amdgpu_cwsr_enable", Value: nil},
	}
	nodeUnread := Object{{Key: "pcie_aspm_policy", Value: "absent"}, {Key: "amdgpu_cwsr_enable", Value: "EACCES"}}
	sources := Object{
		{Key: "numa_balancing", Value: "/proc/sys/kernel/numa_balancing"},
		{Key: "cmdline_pci_realloc_off", Value: "/proc/cmdline"},
		{Key: "cmdline_pci_bfsort", Value: "/proc/cmdline"},
		{Key: "cmdline_iommu_pt", Value: "/proc/cmdline"},
		{Key: "iommu_gpu_group_type", Value: "/sys/kernel/iommu_groups/*/type"},
		{Key: "thp_enabled", Value: "/sys/kernel/mm/transparent_hugepage/enabled"},
		{Key: "smt_active", Value: "/sys/devices/system/cpu/smt/active"},
		{Key: "online_cpus", Value: "/sys/devices/system/cpu/online"},
		{Key: "pcie_aspm_policy", Value: "/sys/module/pcie_aspm/parameters/policy"},
		{Key: "cpufreq_governor", Value: "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor"},
		{Key: "mem_total_bytes", Value: "/proc/meminfo"},
		{Key: "amdgpu_initstate", Value: "/sys/module/amdgpu/initstate"},
		{Key: "amdgpu_cwsr_enable", Value: "/sys/module/amdgpu/parameters/cwsr_enable"},
		{Key: "gpus.performance_level", Value: "power_dpm_force_performance_level"},
		{Key: "gpus.power_cap_uw", Value: "hwmon/hwmon*/power1_cap"},
		{Key: "gpus.power_cap_max_uw", Value: "hwmon/hwmon*/power1_cap_max"},
		{Key: "gpus.sclk_max_mhz", Value: "pp_dpm_sclk"},
		{Key: "gpus.soc_pstate", Value: "pm_policy/soc_pstate"},
		{Key: "gpus.vis_vram_total_bytes", Value: "mem_info_vis_vram_total"},
		{Key: "gpus.xgmi_hive_id", Value: "xgmi_hive_info/xgmi_hive_id"},
	}
	return nodeSettings, nodeUnread, sources
}

// tuningGPUs is Tuning's per-GPU settings and --tuning-state values, one
// of each per device of GPUs' eight; deviating gives the third GPU a
// small BAR.
func tuningGPUs(node int, deviating bool, vram string, pick func(bool, string, string) string) (gpusList, stateList []any) {
	num := func(s string) any { return pyjson.Number(s) }
	for i, g := range mi308x {
		vis := vram
		if deviating && i == 2 {
			vis = "268435456"
		}
		gpusList = append(gpusList, Object{
			{Key: "pci", Value: g.pci},
			{Key: "dir", Value: "/sys/bus/pci/devices/" + g.pci},
			{Key: "settings", Value: Object{
				{Key: "performance_level", Value: "auto"},
				{Key: "power_cap_uw", Value: num("750000000")},
				{Key: "power_cap_max_uw", Value: num("750000000")},
				{Key: "sclk_max_mhz", Value: num("2100")},
				{Key: "soc_pstate", Value: nil},
				{Key: "vis_vram_total_bytes", Value: num(vis)},
				{Key: "xgmi_hive_id", Value: fmt.Sprint(node+1) + "095653680343411291"},
			}},
			{Key: "unread", Value: Object{{Key: "soc_pstate", Value: "absent"}}},
		})
		stateList = append(stateList, Object{
			{Key: "pci", Value: g.pci},
			{Key: "values", Value: Object{
				{Key: "gpu_busy_percent", Value: num(fmt.Sprint(i))},
				{Key: "power_uw", Value: num("173000000")},
				{Key: "temp_junction_mc", Value: num("41000")},
				{Key: "pcie_replay_count", Value: num(pick(i == 5, "3", "0"))},
				{Key: "vram_used_bytes", Value: num("12582912")},
				{Key: "mem_busy_percent", Value: nil},
				{Key: "ras_err_counts", Value: Object{
					{Key: "umc", Value: Object{{Key: "ue", Value: num("0")}, {Key: "ce", Value: num(pick(i == 1, "2", "0"))}, {Key: "de", Value: num("0")}}},
					{Key: "gfx", Value: nil},
				}},
				{Key: "aer_fatal", Value: num("0")},
			}},
			{Key: "unread", Value: Object{{Key: "mem_busy_percent", Value: "EPERM"}}},
		})
	}
	return gpusList, stateList
}

// tuningDeviations is Tuning's deviations: the deviating node's four, the
// MI350X node's one.
func tuningDeviations(kind TuningNode, deviating bool, family, vram string) []any {
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
	return deviations
}

// SetTuning sets probe_provenance.tuning (Tuning).
func SetTuning(b Object) Edit { return Set("probe_provenance.tuning", b) }

// NoTuning removes probe_provenance.tuning where the document has one: a
// document of an aorta-probe older than the block.
func NoTuning(t testing.TB, m Object) Object {
	t.Helper()
	p, ok := m.Get("probe_provenance")
	prov, isObj := p.(Object)
	if !ok || !isObj {
		return m
	}
	if _, ok := prov.Get("tuning"); !ok {
		return m
	}
	return Del("probe_provenance.tuning")(t, m)
}
