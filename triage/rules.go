package triage

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"aorta-probe/internal/knobs"
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
	GroupOther     Group = "other"
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
	{"schema_version", GroupOther, "the schema the documents follow: older documents lack newer keys"},
}

// placementPaths are shown in the placement block, never as identity
// differences (docs/triage.md, "Placement").
var placementPaths = []string{
	"runtime_context.type",
	"container_detected",
	"probe_namespace",
	"amdgpu_driver.kfd_device_present",
	"amdgpu_driver.kmd_version",
	"rocm.kmd_version",
	"host.kernel_release",
	"host.kernel_version",
	"host.machine",
	"docker.container_id",
	"execution_context",
}

// provenanceIdentity are the parts of probe_provenance that describe the
// place, not the capture: compared when both documents carry them.
var provenanceIdentity = []string{"os_release", "rocm_installs"}

// provenanceProjected are the parts of probe_provenance that describe the
// place but are compared through a projection onto fields every node
// shares, never walked leaf by leaf: gpus (gpus.go; its serials and PCI
// addresses differ on every node). Their projected fields are identity.
var provenanceProjected = []string{"gpus"}

// noisePaths never count as a difference: the capture time, the partial
// flag and reasons (the fields they explain are compared instead), the
// constant catalog doc strings, reason texts that repeat a status, the
// per-file catalog lists (--extended; the combined hash covers them) and
// the whole provenance block, whose timings, command records and probe
// build describe the capture, not the place. Its placement evidence and
// os_release are read separately.
var noisePaths = []string{
	"captured_at",
	"partial",
	"partial_reasons",
	"probe_provenance",
	"tensile_catalog.doc",
	"miopen_catalog.doc",
	"rocfft_catalog.doc",
	"tensile_catalog.*.menu.files",
	"tensile_catalog.*.menu.reason",
	"miopen_catalog.menu.files",
	"miopen_catalog.menu.reason",
	"rocfft_catalog.kernel_cache.reason",
}

// perNodePaths hold a value of their own on every node, namespace or card
// by design (ids and serial numbers): the namespace inode hash (salted
// with each boot id), the container id, a NIC card's UUID. A fleet never
// tallies them (no value can have a majority, and each would grow the
// tally by a value and a row per document); the boot fingerprint and the
// mount namespace id of probe_provenance.identity are reported as the
// fleet's places instead. A two-document diff still compares them
// (probe_namespace and docker.container_id in the placement block).
var perNodePaths = []string{
	"probe_namespace",
	"docker.container_id",
	"nics.*.card.uuid",
}

// fieldKind is what triage does with a field, the one classification both
// `diff` and `diff --fleet` use (docs/triage.md, "Noise" and "Fleet").
type fieldKind int

const (
	// kindIdentity is compared (diff) and tallied (fleet).
	kindIdentity fieldKind = iota
	// kindPlacement is a placement field: the placement block of a
	// two-document diff; tallied in a fleet, as group placement.
	kindPlacement
	// kindPerNode is unique per node by design (perNodePaths): compared by
	// a two-document diff, never tallied in a fleet.
	kindPerNode
	// kindIgnored is never compared: noise (the capture's time, timings,
	// command records, partial reasons; noisePaths) and env_vars names off
	// the canonical knob list.
	kindIgnored
)

// kindOf classifies a field path (docs/triage.md). Within
// probe_provenance only os_release and rocm_installs are identity
// (provenanceIdentity); the rest describes the capture, and its identity
// block is read apart (identityOf: the verdict, the fleet's places).
func kindOf(path []string) fieldKind {
	t := compileOnce()
	if !t.firstKeys[path[0]] && !t.firstKeys["*"] {
		return kindIdentity // no pattern starts with this block (most of them)
	}
	switch {
	case len(path) >= 2 && path[0] == "probe_provenance" && (slices.Contains(provenanceIdentity, path[1]) || slices.Contains(provenanceProjected, path[1])):
		return kindIdentity
	case matchesAny(t.noise, path):
		return kindIgnored
	case len(path) == 2 && path[0] == "env_vars" && !canonicalKnob(path[1]):
		return kindIgnored
	case matchesAny(t.perNode, path):
		return kindPerNode
	case matchesAny(t.placement, path):
		return kindPlacement
	}
	return kindIdentity
}

// match reports whether pattern's keys are a prefix of path's.
func match(pattern, path []string) bool {
	if len(pattern) > len(path) {
		return false
	}
	for i, p := range pattern {
		if p != "*" && p != path[i] {
			return false
		}
	}
	return true
}

type compiled struct {
	keys []string
	rank int
	rule
}

type tables struct {
	rules            []compiled
	knobs            map[string]knobs.Knob
	noise, placement [][]string
	perNode          [][]string
	// firstKeys are the first keys of the patterns kindOf tests, and
	// probe_provenance and env_vars.
	firstKeys map[string]bool
}

var compileOnce = sync.OnceValue(func() *tables {
	t := &tables{knobs: map[string]knobs.Knob{}}
	for i, r := range rules {
		t.rules = append(t.rules, compiled{keys: strings.Split(r.pattern, "."), rank: i, rule: r})
	}
	for _, k := range knobs.All() {
		t.knobs[k.Name] = k
	}
	for _, p := range noisePaths {
		t.noise = append(t.noise, strings.Split(p, "."))
	}
	for _, p := range placementPaths {
		t.placement = append(t.placement, strings.Split(p, "."))
	}
	for _, p := range perNodePaths {
		t.perNode = append(t.perNode, strings.Split(p, "."))
	}
	t.firstKeys = map[string]bool{"probe_provenance": true, "env_vars": true}
	for _, ps := range [][][]string{t.noise, t.placement, t.perNode} {
		for _, p := range ps {
			t.firstKeys[p[0]] = true
		}
	}
	return t
})

// classify returns the rank, group and "why it matters" of a field path.
// Unknown fields rank after every rule, in group "other".
func classify(path []string) (int, Group, string) {
	t := compileOnce()
	cs, knobs := t.rules, t.knobs
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

// canonicalKnob reports whether name is on the registry's canonical list;
// env_vars keys off the list are not compared.
func canonicalKnob(name string) bool {
	_, ok := compileOnce().knobs[name]
	return ok
}

func matchesAny(patterns [][]string, path []string) bool {
	for _, p := range patterns {
		if match(p, path) {
			return true
		}
	}
	return false
}

// skipped reports whether a two-document diff leaves a path out of the
// identity differences: noise, or a field of the placement block.
func skipped(path []string) bool {
	switch kindOf(path) {
	case kindIgnored, kindPlacement:
		return true
	case kindPerNode:
		return matchesAny(compileOnce().placement, path)
	}
	return false
}

// gpuFirmwareWhy is the "why" of the GPU firmware fields: kfd's MEC and
// SDMA versions and amdgpu's fw_version files share it.
const gpuFirmwareWhy = "the GPU firmware (MEC, SDMA, PSP, SMU …): the microcode that schedules work, copies memory and manages clocks and power"

// optionalBlock is a block an older aorta-probe, or a document written
// with --no-provenance, does not carry. A field under it is compared only
// between documents that both carry the block: diff (differences,
// hardwareDifferences) and --fleet alike, which says once how many
// documents lack it (docs/triage.md, "A fleet of mixed probe versions").
type optionalBlock struct {
	path string
	// without ends the fleet's note: "N documents " + without.
	without string
	// nullLacks: a null block counts as lacking (gpus: gpuLeaves projects
	// nothing from it, as from none).
	nullLacks bool
}

// optionalBlocks are at most 8 (blockSet is a byte), parents first.
var optionalBlocks = []optionalBlock{
	{"probe_provenance", "without probe_provenance (another probe, or --no-provenance)", false},
	{"probe_provenance.gpus", "from an older aorta-probe (no gpus block)", true},
	{"probe_provenance.rocm_installs", "from an older aorta-probe (no rocm_installs block)", false},
	{"probe_provenance.os_release", "from an older aorta-probe (no os_release block)", false},
}

// blockSet is a set of optionalBlocks, bit i for optionalBlocks[i].
type blockSet uint8

// lacking is the optional blocks d does not carry; a document without
// probe_provenance lacks every block under it too.
func lacking(d *Document) blockSet {
	var s blockSet
	for i, b := range optionalBlocks {
		v, ok := d.Lookup(b.path)
		if !ok || (b.nullLacks && v == nil) {
			s |= 1 << i
		}
	}
	return s
}

// blocksOver is the optional blocks a field path lies under.
func blocksOver(path string) blockSet {
	var s blockSet
	for i, b := range optionalBlocks {
		if path == b.path || strings.HasPrefix(path, b.path+".") {
			s |= 1 << i
		}
	}
	return s
}

// lackingNotes says once per optional block how many of the documents
// lack it, when others carry it: a document is counted under its
// outermost missing block only.
func lackingNotes(lacks []blockSet) []string {
	counts, carriers := make([]int, len(optionalBlocks)), make([]int, len(optionalBlocks))
	for _, s := range lacks {
		counted := false
		for i := range optionalBlocks {
			switch {
			case s&(1<<i) == 0:
				carriers[i]++
			case !counted:
				counts[i]++
				counted = true
			}
		}
	}
	var notes []string
	for i, b := range optionalBlocks {
		if n := counts[i]; n > 0 && carriers[i] > 0 {
			notes = append(notes, fmt.Sprintf("%d document%s %s", n, plural(n), b.without))
		}
	}
	return notes
}
