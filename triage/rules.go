package triage

import (
	"strings"
	"sync"
)

// Group is a family of identity fields. Groups are listed in rank order:
// the earlier, the more likely a difference changes numerics
// (docs/triage.md, "Ranking").
type Group string

const (
	GroupROCm      Group = "rocm"
	GroupDriver    Group = "driver"
	GroupGPU       Group = "gpu"
	GroupHardware  Group = "hardware"
	GroupLibraries Group = "libraries"
	GroupCatalogs  Group = "catalogs"
	GroupPython    Group = "python"
	GroupEnv       Group = "env"
	GroupHost      Group = "host"
	// GroupTuning is probe_provenance.tuning: settings that change speed,
	// not numerics (docs/tuning.md).
	GroupTuning Group = "tuning"
	GroupOther  Group = "other"
	// GroupPlacement is used by the fleet report only: in a two-document
	// diff the placement fields have their own block.
	GroupPlacement Group = "placement"
)

// rule gives the fields under a dotted path pattern ("*" matches one key)
// their group and the one-line reason a difference there matters. The
// longest matching pattern wins; the table order is the rank.
type rule struct {
	pattern string
	group   Group
	why     string
}

var rules = []rule{
	{"docker.image", GroupROCm, "the launcher-declared image: another image usually means another ROCm and PyTorch stack"},
	{"docker.digest", GroupROCm, "the image digest: the exact image bytes, whatever the tag says"},
	{"docker", GroupROCm, "whether a container runtime was detected, with the launcher's image"},
	{"rocm.version", GroupROCm, "the ROCm release: compiler, runtime and every math library come from it"},
	{"rocm.version_dev", GroupROCm, "the ROCm build number: two builds of one release can ship different kernels"},
	{"rocm", GroupROCm, "which ROCm install the process resolves: another root can mean other libraries under the same version"},
	{"therock", GroupROCm, "the TheRock build manifest: another build or submodule pin means other library code"},
	{"hip", GroupROCm, "the HIP runtime and compiler: kernel code generation and launch behaviour"},
	{"probe_provenance.rocm_installs", GroupROCm, "every ROCm install on the node and which one the loader takes libamdhip64, rocBLAS and hipBLASLt from: two installs on one node are a classic cause of numerical differences"},

	{"amdgpu_driver", GroupDriver, "the amdgpu kernel driver package or module: scheduling, memory and firmware fixes under the same userspace"},

	{"gpu_arch", GroupGPU, "the GPUs the process sees: kernels are chosen per gfx target, and the count changes sharding"},

	// probe_provenance.gpus as gpuLeaves projects it (gpus.go): the
	// partition modes, firmware, VBIOS, PCIe link and VRAM first.
	{"probe_provenance.gpus.devices[].compute_partition", GroupHardware, "the compute partition mode (SPX … CPX): how many XCCs and CUs each agent gets; the number of agents, grid sizes and the GEMM solutions picked per CU count change with it"},
	{"probe_provenance.gpus.devices[].memory_partition", GroupHardware, "the memory partition mode (NPS1, NPS4 …): how VRAM is interleaved and how much of it each partition sees"},
	{"probe_provenance.gpus.partition_count", GroupHardware, "the kfd agents the GPUs are split into (partitions): what the process enumerates and shards over"},
	{"probe_provenance.gpus.devices[].partitions", GroupHardware, "the kfd agents the GPUs are split into (partitions): what the process enumerates and shards over"},
	{"probe_provenance.gpus.devices[].amdgpu_sysfs", GroupHardware, "whether amdgpu's sysfs (the GPU's DRM render node) could be read: without it the process may not reach the GPU, and its partition modes, VBIOS, VRAM, link and firmware are unknown"},
	{"probe_provenance.gpus.devices[].firmware", GroupHardware, gpuFirmwareWhy},
	{"probe_provenance.gpus.devices[].fw_version", GroupHardware, gpuFirmwareWhy},
	{"probe_provenance.gpus.devices[].sdma_fw_version", GroupHardware, gpuFirmwareWhy},
	{"probe_provenance.gpus.devices[].vbios_version", GroupHardware, "the VBIOS: the board's firmware, its clocks and power limits"},
	{"probe_provenance.gpus.devices[].pcie.link", GroupHardware, "the PCIe link as trained: a link below its maximum speed or width slows every host transfer"},
	{"probe_provenance.gpus.devices[].vram_bytes", GroupHardware, "the VRAM the driver reports: another board, or memory retired or reserved"},
	{"probe_provenance.gpus.physical_count", GroupHardware, "the physical GPUs kfd lists: a GPU missing or added"},
	{"probe_provenance.gpus.hives", GroupHardware, "the XGMI hives (their sizes): which GPUs reach each other over XGMI instead of PCIe, the collectives' topology and bandwidth"},
	{"probe_provenance.gpus.devices[].numa_node", GroupHardware, "the NUMA node each GPU is attached to: host memory and CPU affinity of its transfers"},
	{"probe_provenance.gpus.devices[].gfx_target", GroupHardware, "the GPU model and stepping"},
	{"probe_provenance.gpus.devices[].device_id", GroupHardware, "the GPU model and stepping"},
	{"probe_provenance.gpus.devices[].product_name", GroupHardware, "the GPU model and stepping"},
	{"probe_provenance.gpus.devices[].cu_count", GroupHardware, "the compute units kfd reports: fewer CUs change occupancy and the kernels picked"},
	{"probe_provenance.gpus.devices[].simd_count", GroupHardware, "the compute units kfd reports: fewer CUs change occupancy and the kernels picked"},
	{"probe_provenance.gpus.devices[].num_xcc", GroupHardware, "the compute units kfd reports: fewer CUs change occupancy and the kernels picked"},
	{"probe_provenance.gpus.devices[].pcie.max", GroupHardware, "the fastest PCIe link the GPU and its slot can train to"},
	{"probe_provenance.gpus", GroupHardware, "the GPUs as kfd and amdgpu's sysfs show them (docs/hardware.md)"},

	{"hipblaslt.lib_hash", GroupLibraries, "the hipBLASLt binary itself: another hash is other GEMM code even under the same version"},
	{"hipblaslt", GroupLibraries, "hipBLASLt identity: which GEMM kernels exist and how solutions are selected"},
	{"rocblas.lib_hash", GroupLibraries, "the rocBLAS binary itself: another hash is other BLAS code even under the same version"},
	{"rocblas", GroupLibraries, "rocBLAS identity: BLAS kernels and their Tensile solution selection"},
	{"tensile", GroupLibraries, "Tensile's package and kernel-DB fingerprint: the GEMM solution menu both BLAS libraries use"},
	{"composable_kernel", GroupLibraries, "Composable Kernel: the attention and GEMM kernels PyTorch and aiter may dispatch to"},
	{"miopen.lib_hash", GroupLibraries, "the MIOpen binary itself: other convolution and normalisation code"},
	{"miopen", GroupLibraries, "MIOpen identity: convolution solvers and their tuned databases"},
	{"aotriton", GroupLibraries, "AOTriton: the precompiled attention kernels PyTorch's SDPA uses"},
	{"rccl.lib_hash", GroupLibraries, "the RCCL binary itself: collective algorithms and reduction order"},
	{"rccl", GroupLibraries, "RCCL and its network plugin: collective algorithms, transport and reduction order"},

	{"tensile_catalog.*.menu.combined_content_hash", GroupCatalogs, "the content of the installed Tensile kernel files: other kernel binaries or solution logic"},
	{"tensile_catalog.combined", GroupCatalogs, "the names of every installed Tensile kernel file: another solution menu"},
	{"miopen_catalog.menu.combined_content_hash", GroupCatalogs, "the content of MIOpen's find/perf/kernel databases: other solver choices and tuned parameters"},
	{"rocfft_catalog.kernel_cache.sha256", GroupCatalogs, "the content of rocFFT's ahead-of-time kernel cache: other precompiled FFT kernels"},
	{"tensile_catalog", GroupCatalogs, "the installed Tensile solution menu: same library version, other kernels to select from"},
	{"miopen_catalog", GroupCatalogs, "the installed MIOpen find/perf/kernel databases: other solvers and tuned parameters get picked"},
	{"rocfft_catalog", GroupCatalogs, "rocFFT's ahead-of-time kernel cache: other precompiled FFT kernels"},

	{"pytorch_version", GroupPython, "the PyTorch release: operator implementations and defaults"},
	{"pytorch_build", GroupPython, "how PyTorch was built: commit, HIP version, flags and bundled kernels"},
	{"pytorch_sdpa", GroupPython, "which scaled-dot-product-attention backends are enabled: another attention kernel"},
	{"triton", GroupPython, "Triton: the compiler of torch.compile and custom kernels"},
	{"aiter", GroupPython, "aiter: the AMD kernels some models dispatch to instead of PyTorch's"},
	{"fbgemm", GroupPython, "FBGEMM_GPU: embedding and quantised GEMM kernels"},
	{"torchrec", GroupPython, "TorchRec: sharding and embedding-bag behaviour of recommendation models"},
	{"python_version", GroupPython, "the Python interpreter described: another interpreter can import another stack"},
	{"runtime_context", GroupPython, "the Python environment (system, venv, conda) the stack was imported from"},
	{"library_introspection", GroupPython, "the Buck2-resolved library targets: another build of the libraries linked in"},
	{"library_introspection_alternates", GroupPython, "other candidate library targets Buck2 resolved"},
	{"build_system", GroupPython, "the build system the probe found: where the stack was built from"},
	{"buck_invocation", GroupPython, "the Buck2 context (modes, configs, modifiers): another configuration of the same target"},

	{"env_vars", GroupEnv, "a canonical knob from the registry (docs/env-knobs.md)"},

	{"host", GroupHost, "the process's C library: math functions and threading outside the GPU stack"},
	{"nics", GroupHost, "the RDMA NICs: collectives' transport and bandwidth, not kernel numerics"},
	{"system_health", GroupHost, "the rdhc health report of the node"},
	{"probe_provenance.os_release", GroupHost, "the distribution of the probed filesystem"},
	// probe_provenance.tuning as tuningLeaves projects it (tuning.go); the
	// reasons are tuning.md's (docs/tuning.md). Settings change speed, not
	// numerics: the group ranks after host.
	{"probe_provenance.tuning.deviations", GroupTuning, "the rules of AMD's Instinct guides the node breaks, each as (setting, GPU family, guide): a node set up otherwise than AMD's guide says"},
	{"probe_provenance.tuning.family", GroupTuning, "the rule set applied (MI300 for gfx942 parts, MI350 for gfx950): which of AMD's guides judged the node"},
	{"probe_provenance.tuning.product", GroupTuning, "the Instinct product from the PCI device id: rules that differ within a family (MI300A's IOMMU, memory minimums)"},
	{"probe_provenance.tuning.checked", GroupTuning, "how many of the guides' rules were judged: another count, another rule set or fewer readable settings"},
	{"probe_provenance.tuning.node.numa_balancing", GroupTuning, "NUMA auto-balancing: the kernel migrates pages behind running work; AMD's MI300X, MI300A and System Acceptance guides say 0 (disabled), and RDHC fails a node on anything else"},
	{"probe_provenance.tuning.node.cmdline_pci_realloc_off", GroupTuning, "pci=realloc=off on the kernel command line: lets Linux see every GPU when the BIOS did not allocate SR-IOV BARs; required by AMD's MI3xx guides"},
	{"probe_provenance.tuning.node.cmdline_pci_bfsort", GroupTuning, "pci=bfsort: breadth-first PCI enumeration, a predictable GPU order; in the MI325X/MI350X/MI355X acceptance criteria"},
	{"probe_provenance.tuning.node.cmdline_iommu_pt", GroupTuning, "iommu=pt: the GPUs' DMA passes the IOMMU untranslated, AMD's recommendation for Instinct GPUs (MI300A runs with the IOMMU off)"},
	{"probe_provenance.tuning.node.cmdline_amd_iommu_on", GroupTuning, "amd_iommu=on: the IOMMU enabled on AMD hosts, in the MI300X acceptance criteria beside iommu=pt; RDHC errors without it"},
	{"probe_provenance.tuning.node.cmdline_intel_iommu_on", GroupTuning, "intel_iommu=on: the IOMMU enabled on Intel hosts, which AMD's guides ask for there"},
	{"probe_provenance.tuning.node.iommu_gpu_group_type", GroupTuning, "the IOMMU domain of the GPUs' groups: identity (passthrough) as iommu=pt gives, or DMA/DMA-FQ, every GPU transfer translated"},
	{"probe_provenance.tuning.node.iommu_groups", GroupTuning, "the IOMMU groups the kernel made: none when the IOMMU is off, as MI300A wants it"},
	{"probe_provenance.tuning.node.acpi_ivrs", GroupTuning, "the AMD IOMMU ACPI table (IVRS): present when the IOMMU is enabled in BIOS, absent as MI300A wants it"},
	{"probe_provenance.tuning.node.acpi_dmar", GroupTuning, "the Intel IOMMU ACPI table (DMAR): present when the IOMMU is enabled in BIOS"},
	{"probe_provenance.tuning.node.cmdline_amdgpu_blacklisted", GroupTuning, "modprobe.blacklist=amdgpu: the driver loaded after boot, optional but the safest option in AMD's acceptance pages"},
	{"probe_provenance.tuning.node.cmdline_optional", GroupTuning, "the optional performance boot parameters AMD lists (pcie_aspm=off, processor.max_cstate=0, mitigations=off …)"},
	{"probe_provenance.tuning.node.cpuidle_driver", GroupTuning, "the CPU idle driver: which C-states the kernel can enter"},
	{"probe_provenance.tuning.node.cpuidle_c2_enabled_cpus", GroupTuning, "the CPUs whose C2 idle state is enabled: waking from C2 adds latency; AMD's MI300X guide disables it (cpupower idle-set -d 2)"},
	{"probe_provenance.tuning.node.thp_enabled", GroupTuning, "transparent huge pages: [always] is required on MI300A (unified memory), optional on the discrete GPUs"},
	{"probe_provenance.tuning.node.compaction_proactiveness", GroupTuning, "proactive memory compaction: MI300A wants 20 so that huge pages stay available"},
	{"probe_provenance.tuning.node.compact_unevictable_allowed", GroupTuning, "compaction of unevictable pages: MI300A wants 1"},
	{"probe_provenance.tuning.node.smt_control", GroupTuning, "the SMT control (on, off, forceoff, notsupported): how the BIOS and kernel set hyper-threading"},
	{"probe_provenance.tuning.node.smt_active", GroupTuning, "SMT: AMD's BIOS tables suggest it off for compute-bound work"},
	{"probe_provenance.tuning.node.online_cpus", GroupTuning, "the online CPUs: 255 on a 256-thread host is the APIC fallback when the IOMMU is off in BIOS"},
	{"probe_provenance.tuning.node.present_cpus", GroupTuning, "the present CPUs: more present than online is the APIC fallback of a 256-thread host"},
	{"probe_provenance.tuning.node.numa_nodes_per_socket", GroupTuning, "the BIOS NPS mode as NUMA nodes per socket: AMD suggests NPS1"},
	{"probe_provenance.tuning.node.pcie_aspm_policy", GroupTuning, "PCIe ASPM: link power states add latency to transfers; AMD's BIOS table says disable"},
	{"probe_provenance.tuning.node.cpufreq_governor", GroupTuning, "the CPU frequency governor: no AMD rule, but another governor can change host-side speed"},
	{"probe_provenance.tuning.node.cpufreq_driver", GroupTuning, "the CPU frequency driver (amd-pstate, acpi-cpufreq …): no AMD rule, but it decides how the CPUs clock"},
	{"probe_provenance.tuning.node.cpufreq_boost", GroupTuning, "CPU boost: off caps host-side speed; no AMD rule"},
	{"probe_provenance.tuning.node.mem_total_bytes", GroupTuning, "system memory: AMD's acceptance minimum is 2 TB for MI300X, 2.5 TB for MI325X, 3 TB for MI350X/MI355X"},
	{"probe_provenance.tuning.node.amdgpu_initstate", GroupTuning, "whether the amdgpu module is live"},
	{"probe_provenance.tuning.node.amdgpu_cwsr_enable", GroupTuning, "amdgpu's cwsr_enable (compute wave save/restore): RDHC warns unless 0"},
	{"probe_provenance.tuning.node.amdttm_pages_limit", GroupTuning, "amdttm's pages_limit: on MI300A the GPU memory each APU may allocate (33554432 pages × the APUs)"},
	{"probe_provenance.tuning.node.amdttm_page_pool_size", GroupTuning, "amdttm's page_pool_size: set with pages_limit on MI300A"},
	{"probe_provenance.tuning.node", GroupTuning, "a node setting AMD's Instinct guides name (docs/tuning.md)"},
	{"probe_provenance.tuning.gpus[].performance_level", GroupTuning, "the GPU's DPM performance level (auto, manual, perf_determinism …): pinned or capped clocks; the GPUs of a node should agree"},
	{"probe_provenance.tuning.gpus[].power_cap_uw", GroupTuning, "the GPU's power cap: a lower cap throttles clocks under load"},
	{"probe_provenance.tuning.gpus[].power_cap_max_uw", GroupTuning, "the highest power cap the board allows, against which a lowered cap is judged"},
	{"probe_provenance.tuning.gpus[].power_cap_min_uw", GroupTuning, "the lowest power cap the board allows"},
	{"probe_provenance.tuning.gpus[].power_cap_default_uw", GroupTuning, "the power cap the driver reports as default (on MI300 the current limit)"},
	{"probe_provenance.tuning.gpus[].sclk_max_mhz", GroupTuning, "the highest GFX clock allowed: 1900 instead of 2100 MHz on MI300X is the determinism cap"},
	{"probe_provenance.tuning.gpus[].sclk_min_mhz", GroupTuning, "the lowest GFX clock allowed"},
	{"probe_provenance.tuning.gpus[].soc_pstate", GroupTuning, "the SoC P-state policy (pm_policy): a power policy that trades speed for power"},
	{"probe_provenance.tuning.gpus[].xgmi_plpd", GroupTuning, "the XGMI link power-down policy (pm_policy): links powered down between transfers"},
	{"probe_provenance.tuning.gpus[].pp_features", GroupTuning, "the power-play feature mask: which clock and power features the SMU runs"},
	{"probe_provenance.tuning.gpus[].vis_vram_total_bytes", GroupTuning, "large BAR: the VRAM the CPU sees (Above 4G decoding); RDHC warns when it is below the total"},
	{"probe_provenance.tuning.gpus[].local_cpulist", GroupTuning, "the CPUs local to the GPU: where its host transfers and launch threads run best"},
	{"probe_provenance.tuning.gpus[].iommu_group_type", GroupTuning, "the IOMMU domain of the GPU's group: identity (passthrough) or translated"},
	{"probe_provenance.tuning.gpus[].thermal_throttling_logging", GroupTuning, "whether thermal throttling is logged to the kernel log"},
	{"probe_provenance.tuning.gpus[].ras_features", GroupTuning, "the RAS feature mask: which error-correction features the GPU runs"},
	{"probe_provenance.tuning.gpus[]", GroupTuning, "a per-GPU setting AMD's Instinct guides name (docs/tuning.md)"},
	{"probe_provenance.tuning", GroupTuning, "the node and GPU settings AMD's Instinct guides name (docs/tuning.md)"},

	{"schema_version", GroupOther, "the schema the documents follow: older documents lack newer keys"},
}

type compiled struct {
	keys []string
	rank int
	rule
}

// compileOnce is rules with their patterns split and their rank.
var compileOnce = sync.OnceValue(func() []compiled {
	var cs []compiled
	for i, r := range rules {
		cs = append(cs, compiled{keys: strings.Split(r.pattern, "."), rank: i, rule: r})
	}
	return cs
})

// classify returns the rank, group and "why it matters" of a field path.
// Unknown fields rank after every rule, in group "other".
func classify(path []string) (int, Group, string) {
	cs, knobs := compileOnce(), fieldsOnce().knobs
	best := -1
	for i, c := range cs {
		if match(c.keys, path) && (best < 0 || len(c.keys) > len(cs[best].keys)) {
			best = i
		}
	}
	if best < 0 {
		return len(cs), GroupOther, "not ranked: listed so that nothing is hidden"
	}
	c := cs[best]
	why := c.why
	if c.group == GroupEnv && len(path) == 2 {
		if k, ok := knobs[path[1]]; ok {
			why = k.Library + " " + strings.ReplaceAll(k.Category, "_", " ") + ": " + k.Consumer
		}
	}
	if c.pattern == "host" && len(path) > 1 && path[1] != "glibc_version" {
		why = "the host kernel as the process sees it"
	}
	return c.rank, c.group, why
}

// gpuFirmwareWhy is the "why" of the GPU firmware fields: kfd's MEC and
// SDMA versions and amdgpu's fw_version files share it.
const gpuFirmwareWhy = "the GPU firmware (MEC, SDMA, PSP, SMU …): the microcode that schedules work, copies memory and manages clocks and power"
