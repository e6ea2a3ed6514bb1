package fakeroot

import (
	"fmt"
	"path"
	"strings"
)

// TuningNode builds the /proc and /sys files probe_provenance.tuning reads
// on an AMD Instinct node (docs/tuning.md): node settings and, for each
// GPU's PCI device, its amdgpu settings and state files, in the formats
// tuning.md quotes (procfs's real samples, the kernel's show()
// functions). Values are plausible, not captured. The zero value of each
// knob is what AMD's guides recommend for an MI300X node.
type TuningNode struct {
	CPUs    int // online and present CPUs, 0..CPUs-1; SMT siblings are cpu and cpu+CPUs/2
	Sockets int // CPU packages, one NUMA node each (NPS1)

	NUMABalancing string // "0" when ""
	Cmdline       string // /proc/cmdline; AMD's MI300X sample when ""
	GroupType     string // the GPUs' IOMMU group type; "identity" when ""
	NoIVRS        bool   // no IVRS ACPI table (IOMMU off in the BIOS)
	C2Enabled     bool   // C2 not disabled (cpupower idle-set -d 2 not run)
	THP           string // THP enabled line; "always [madvise] never" when ""
	MemTotalKB    int64  // 2113638400 (about 2.16 TB) when 0
	Kernel        string // osrelease; "6.8.0-40-generic" when ""

	GPUs []TuningGPU
}

// TuningGPU is one GPU's PCI device.
type TuningGPU struct {
	Dir      string // its directory, relative to the root: sys/devices/pci0000:00/…/0000:0a:00.0
	HiveID   string // xgmi_hive_id (decimal)
	VRAM     int64  // mem_info_vram_total; mem_info_vis_vram_total is the same unless VisVRAM
	VisVRAM  int64
	Group    int    // its IOMMU group number
	CPUList  string // local_cpulist
	PowerCap int64  // power1_cap in µW; 750 W when 0
	Level    string // power_dpm_force_performance_level; "auto" when ""
}

// AMDMI300XCmdline is AMD's expected MI3xx command line (System Acceptance
// "Check Kernel Boot Arguments"), with amd_iommu=on as the MI300X
// acceptance page asks.
const AMDMI300XCmdline = "BOOT_IMAGE=/boot/vmlinuz-6.8.0-40-generic root=UUID=456a0345-450d-4f7b-b7c9-43e3241d99ad ro pci=realloc=off pci=bfsort amd_iommu=on iommu=pt numa_balancing=disable modprobe.blacklist=amdgpu"

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Files are the node's files.
func (n TuningNode) Files() []File {
	var out []File
	add := func(p, text string) { out = append(out, File{Path: p, Data: []byte(text), Size: -1}) }
	mem := n.MemTotalKB
	if mem == 0 {
		mem = 2113638400
	}
	add("proc/sys/kernel/numa_balancing", or(n.NUMABalancing, "0")+"\n")
	add("proc/cmdline", or(n.Cmdline, AMDMI300XCmdline)+"\n")
	add("proc/sys/kernel/osrelease", or(n.Kernel, "6.8.0-40-generic")+"\n")
	add("proc/sys/vm/compaction_proactiveness", "20\n")
	add("proc/sys/vm/compact_unevictable_allowed", "1\n")
	add("proc/meminfo", fmt.Sprintf("MemTotal:       %d kB\nMemFree:        %d kB\nMemAvailable:   %d kB\n", mem, mem/2, mem/2))
	add("sys/kernel/mm/transparent_hugepage/enabled", or(n.THP, "always [madvise] never")+"\n")
	add("sys/module/pcie_aspm/parameters/policy", "[default] performance powersave powersupersave \n")
	add("sys/module/amdgpu/initstate", "live\n")
	add("sys/module/amdgpu/parameters/cwsr_enable", "1\n")
	if !n.NoIVRS {
		out = append(out, File{Path: "sys/firmware/acpi/tables/IVRS", Data: []byte("IVRS"), Mode: 0o400, Size: -1})
	}
	out = append(out, n.cpuFiles()...)
	for _, g := range n.GPUs {
		out = append(out, n.gpuFiles(g)...)
	}
	return out
}

// cpuFiles are /sys/devices/system/{cpu,node}: CPUs split evenly across
// the sockets, each socket's cores and their SMT siblings.
func (n TuningNode) cpuFiles() []File {
	var out []File
	add := func(p, text string) { out = append(out, File{Path: p, Data: []byte(text), Size: -1}) }
	const cpu = "sys/devices/system/cpu/"
	all := fmt.Sprintf("0-%d\n", n.CPUs-1)
	add(cpu+"online", all)
	add(cpu+"present", all)
	add(cpu+"smt/control", "on\n")
	add(cpu+"smt/active", "1\n")
	add(cpu+"cpuidle/current_driver", "acpi_idle\n")
	add(cpu+"cpufreq/policy0/scaling_governor", "performance\n")
	add(cpu+"cpufreq/policy0/scaling_driver", "acpi-cpufreq\n")
	add(cpu+"cpufreq/boost", "1\n")
	half := n.CPUs / 2
	per := half / max(n.Sockets, 1)
	socketList := func(s int) string {
		return fmt.Sprintf("%d-%d,%d-%d\n", s*per, s*per+per-1, half+s*per, half+s*per+per-1)
	}
	add(cpu+"cpu0/topology/package_cpus_list", socketList(0))
	disable := "1\n"
	if n.C2Enabled {
		disable = "0\n"
	}
	for c := range n.CPUs {
		d := fmt.Sprintf("%scpu%d/cpuidle/", cpu, c)
		if c == 0 {
			add(d+"state0/name", "POLL\n")
			add(d+"state1/name", "C1\n")
			add(d+"state2/name", "C2\n")
		}
		add(d+"state2/disable", disable)
	}
	online := ""
	for s := range max(n.Sockets, 1) {
		add(fmt.Sprintf("sys/devices/system/node/node%d/cpulist", s), socketList(s))
		online += fmt.Sprintf(",%d", s)
	}
	add("sys/devices/system/node/online", strings.TrimPrefix(online, ",")+"\n")
	return out
}

// gpuFiles are one GPU's settings and state files (docs/tuning.md), and
// its /sys/bus/pci/devices link and IOMMU group.
func (n TuningNode) gpuFiles(g TuningGPU) []File {
	var out []File
	bdf := path.Base(g.Dir)
	add := func(p, text string) { out = append(out, File{Path: g.Dir + "/" + p, Data: []byte(text), Size: -1}) }
	out = append(out, File{Path: "sys/bus/pci/devices/" + bdf, Link: "../../../" + strings.TrimPrefix(g.Dir, "sys/")})
	out = append(out, File{Path: "sys/bus/pci/drivers/amdgpu/" + bdf, Link: "../../../../" + strings.TrimPrefix(g.Dir, "sys/")})
	up := strings.Repeat("../", strings.Count(strings.TrimPrefix(g.Dir, "sys/"), "/")+1)
	out = append(out, File{Path: g.Dir + "/iommu_group", Link: fmt.Sprintf("%skernel/iommu_groups/%d", up, g.Group)})
	out = append(out, File{Path: fmt.Sprintf("sys/kernel/iommu_groups/%d/type", g.Group), Data: []byte(or(n.GroupType, "identity") + "\n"), Size: -1})
	capUW := g.PowerCap
	if capUW == 0 {
		capUW = 750000000
	}
	vis := g.VisVRAM
	if vis == 0 {
		vis = g.VRAM
	}
	add("power_dpm_force_performance_level", or(g.Level, "auto")+"\n")
	add("hwmon/hwmon3/name", "amdgpu\n")
	add("hwmon/hwmon3/power1_cap", fmt.Sprintf("%d\n", capUW))
	add("hwmon/hwmon3/power1_cap_max", "750000000\n")
	add("hwmon/hwmon3/power1_cap_min", "0\n")
	add("hwmon/hwmon3/power1_cap_default", fmt.Sprintf("%d\n", capUW))
	add("pm_policy/soc_pstate", "0 : soc_pstate_default*\n1 : soc_pstate_0\n2 : soc_pstate_1\n3 : soc_pstate_2\n")
	add("pm_policy/xgmi_plpd", "0 : plpd_disallow\n1 : plpd_default*\n2 : plpd_optimized\n")
	add("pp_dpm_sclk", "S: 131Mhz *\n0: 500Mhz\n1: 2100Mhz\n")
	add("pp_features", "Current ppfeatures: 0x0000000019a1ff4f\nFEATURES            BITMASK                ENABLEMENT\nGFXCLK_DPM          0x0000000000000002      Y\nPPT                 0x0000000000004000      Y\nFAN_CONTROL         0x0000000002000000      N\n")
	add("mem_info_vis_vram_total", fmt.Sprintf("%d\n", vis))
	add("local_cpulist", g.CPUList+"\n")
	add("xgmi_hive_info/xgmi_hive_id", g.HiveID+"\n")
	add("thermal_throttling_logging", bdf+": thermal throttling logging enabled, with interval 60 seconds\n")
	add("ras/features", "feature mask: 0x3ff\n")
	// State (read only with --tuning-state) and the files never read.
	add("pp_dpm_mclk", "0: 900Mhz *\n1: 1300Mhz\n")
	add("pp_dpm_fclk", "0: 1200Mhz *\n1: 2000Mhz\n")
	add("pp_dpm_socclk", "0: 28Mhz *\n1: 1143Mhz\n")
	add("hwmon/hwmon3/power1_input", "173000000\n")
	add("hwmon/hwmon3/temp2_input", "41000\n")
	add("hwmon/hwmon3/temp3_input", "35000\n")
	add("gpu_busy_percent", "0\n")
	add("mem_busy_percent", "0\n")
	add("mem_info_vram_used", "297254912\n")
	add("mem_info_vis_vram_used", "297254912\n")
	add("mem_info_gtt_used", "11403264\n")
	add("ras/umc_err_count", "ue: 0\nce: 1\n")
	add("ras/gfx_err_count", "ue: 0\nce: 0\n")
	add("ras/xgmi_wafl_err_count", "ue: 0\nce: 0\n")
	add("ras/gpu_vram_bad_pages", "0x00000001 : 0x00001000 : R\n")
	add("pcie_replay_count", "0\n")
	add("aer_dev_correctable", "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n")
	add("aer_dev_fatal", "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\nAtomicOpBlocked 0\nTLPBlockedErr 0\nPoisonTLPBlocked 0\nTOTAL_ERR_FATAL 0\n")
	add("aer_dev_nonfatal", "Undefined 0\nDLP 0\nTOTAL_ERR_NONFATAL 0\n")
	add("xgmi_error", "0\n")
	out = append(out, File{Path: g.Dir + "/gpu_metrics", Data: []byte("\x78\x00\x01\x04"), Size: -1})
	return out
}

// TuningSideEffects matches the files of a GPU's device directory that
// tuning.md marks as not free to read (a DPM or hwmon state read wakes the
// device and messages its SMU; *_err_count queries and resets hardware
// status; xgmi_error clears its counter; gpu_metrics): the default run
// opens none of them.
func TuningSideEffects(p string) bool {
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, "_err_count"), base == "xgmi_error", base == "gpu_metrics",
		base == "pp_dpm_mclk", base == "pp_dpm_fclk", base == "pp_dpm_socclk",
		base == "power1_input", base == "power1_average", base == "gpu_busy_percent", base == "mem_busy_percent":
		return true
	case strings.HasPrefix(base, "temp") && strings.HasSuffix(base, "_input"),
		strings.HasPrefix(base, "freq") && strings.HasSuffix(base, "_input"):
		return true
	}
	return false
}
