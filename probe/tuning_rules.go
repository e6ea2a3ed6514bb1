package probe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// The one table of rules that judges probe_provenance.tuning against
// AMD's guides (docs/tuning.md, "Rules"). Each row: the setting, the
// family and products it applies to, what the guide recommends, the guide
// and section by name as tuning.md cites them (per product where the
// guides differ), why it matters, and the predicate. A setting no guide
// gives a target for (the CPU governor, SMT, NPS, ASPM, cwsr_enable) has
// no row: it is recorded, never judged.

// The AMD documents by name (the fact sheet's source tags in comments).
const (
	guideSOX    = "AMD Instinct MI300X system optimization"               // [SO-X]
	guideSOA    = "AMD Instinct MI300A system optimization"               // [SO-A]
	guideIOMMU  = "AMD Instinct IOMMU configuration (amdgpu-docs, iommu)" // [IOMMU]
	guideSAOS   = "AMD Instinct System Acceptance: OS tuning"             // [SA-OS]
	guideSAKP   = "AMD Instinct System Acceptance: kernel parameters"     // [SA-KP]
	guideSABIOS = "AMD Instinct System Acceptance: BIOS settings"         // [SA-BIOS]
	guideSAPRE  = "AMD Instinct System Acceptance: prerequisites"         // [SA-PRE]
	guideSA300A = "AMD Instinct System Acceptance: MI300A"                // [SA-300A]
	guideRDHC   = "ROCm Deployment Health Check (rdhc.py)"                // [RDHC]
	guideNode   = "none: the GPUs of one node compared"                   // no AMD target
	wholePage   = "(whole page; tuning.md names no section)"
)

// citation is the guide and section a rule cites for some products (nil:
// every product not matched before).
type citation struct {
	products       []string
	guide, section string
}

// tuneFinding is one value a rule found wrong: where (a PCI address, or ""
// for the node) and the value as shown.
type tuneFinding struct{ scope, value string }

// tuningRule is one row of the table.
type tuningRule struct {
	setting string // node key, or "gpus.<setting>"
	// family is MI300, MI350 or "" (both); products, when set, narrows
	// it; except excludes products.
	family           string
	products, except []string
	guideValue, why  string
	cites            []citation
	// judge returns the findings; judged is false when the value could
	// not be read (the rule is then not counted in checked).
	judge func(f *tuningFacts) (found []tuneFinding, judged bool)
}

// tuningFacts is what the rules read.
type tuningFacts struct {
	t    *schema.Tuning
	devs []schema.GPUDevice // probe_provenance.gpus.devices, same order as t.GPUs
}

func (f *tuningFacts) node(name string) (any, bool) {
	v, _ := f.t.Node.Get(name)
	return v, v != nil
}

func (f *tuningFacts) nodeInt(name string) (int64, bool) {
	switch v := f.node0(name).(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	}
	return 0, false
}

func (f *tuningFacts) node0(name string) any { v, _ := f.node(name); return v }

func (f *tuningFacts) nodeBool(name string) (bool, bool) {
	b, ok := f.node0(name).(bool)
	return b, ok
}

func (f *tuningFacts) nodeStr(name string) (string, bool) {
	s, ok := f.node0(name).(string)
	return s, ok
}

// nodeIs judges one node setting with bad (value shown as text).
func nodeIs[T any](get func(*tuningFacts, string) (T, bool), name string, bad func(T) bool) func(*tuningFacts) ([]tuneFinding, bool) {
	return func(f *tuningFacts) ([]tuneFinding, bool) {
		v, ok := get(f, name)
		if !ok {
			return nil, false
		}
		if bad(v) {
			return []tuneFinding{{"", show(v)}}, true
		}
		return nil, true
	}
}

func show(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "present"
		}
		return "absent"
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// memMinTB is AMD's minimum system memory per product [SA-PRE, SA-HC],
// in decimal terabytes (MI300A: 512 GB of unified HBM [SA-300A]).
var memMinTB = map[string]float64{"MI300X": 2.0, "MI308X": 2.0, "MI325X": 2.5, "MI350X": 3.0, "MI355X": 3.0, "MI300A": 0.512}

// memSlack is how far under the minimum MemTotal may read before it is a
// deviation: the kernel reserves part of installed memory (firmware,
// crash kernel) and MemTotal shows the rest. Not an AMD number.
const memSlack = 0.95

var tuningRules = []tuningRule{
	{setting: "numa_balancing", guideValue: "0",
		why:   "automatic NUMA balancing unmaps and migrates pages to sample accesses; AMD's guides disable it for GPU workloads and RCCL, and RDHC fails a node where it is not 0",
		cites: []citation{{[]string{"MI300X", "MI308X"}, guideSOX, "Disable NUMA auto-balancing"}, {nil, guideSAOS, "NUMA Configuration"}},
		judge: nodeIs((*tuningFacts).nodeInt, "numa_balancing", func(v int64) bool { return v != 0 })},
	{setting: "cmdline_pci_realloc_off", guideValue: "pci=realloc=off on the kernel command line",
		why:   "lets Linux see every GPU when the BIOS did not allocate SR-IOV BARs; required for MI3xx",
		cites: []citation{{[]string{"MI300X", "MI308X"}, guideSOX, "GRUB settings"}, {[]string{"MI300A"}, guideSOA, wholePage}, {nil, guideSAKP, wholePage}},
		judge: nodeIs((*tuningFacts).nodeBool, "cmdline_pci_realloc_off", func(v bool) bool { return !v })},
	{setting: "cmdline_pci_bfsort", products: []string{"MI325X", "MI350X", "MI355X"}, guideValue: "pci=bfsort on the kernel command line",
		why:   "breadth-first PCI enumeration gives a predictable device order; in the MI325X/MI350X/MI355X acceptance criteria",
		cites: []citation{{nil, guideSAKP, wholePage}},
		judge: nodeIs((*tuningFacts).nodeBool, "cmdline_pci_bfsort", func(v bool) bool { return !v })},
	{setting: "cmdline_iommu_pt", except: []string{"MI300A"}, guideValue: "iommu=pt on the kernel command line",
		why:   "IOMMU passthrough: GPU DMA is not translated, the mode AMD recommends for Instinct GPUs",
		cites: []citation{{[]string{"MI300X", "MI308X"}, guideSOX, "GRUB settings"}, {nil, guideSAKP, wholePage}},
		judge: nodeIs((*tuningFacts).nodeBool, "cmdline_iommu_pt", func(v bool) bool { return !v })},
	{setting: "iommu_gpu_group_type", except: []string{"MI300A"}, guideValue: "identity (iommu=pt)",
		why:   "a translated IOMMU domain (DMA, DMA-FQ) adds address translation to every GPU DMA; passthrough reads identity",
		cites: []citation{{nil, guideIOMMU, "IOMMU modes"}},
		judge: nodeIs((*tuningFacts).nodeStr, "iommu_gpu_group_type", func(v string) bool { return v != "identity" })},
	{setting: "iommu_groups", products: []string{"MI300A"}, guideValue: "0 (IOMMU off in the BIOS)",
		why:   "MI300A runs with the IOMMU off for performance; IOMMU groups mean it is on",
		cites: []citation{{nil, guideSOA, "Validating the IOMMU setting"}},
		judge: nodeIs((*tuningFacts).nodeInt, "iommu_groups", func(v int64) bool { return v > 0 })},
	{setting: "acpi_ivrs", products: []string{"MI300A"}, guideValue: "no IVRS or DMAR ACPI table",
		why:   "the firmware describes an IOMMU to the OS: on MI300A it must be off in the BIOS",
		cites: []citation{{nil, guideSOA, "Validating the IOMMU setting"}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			ivrs, ok1 := f.nodeBool("acpi_ivrs")
			dmar, ok2 := f.nodeBool("acpi_dmar")
			if !ok1 || !ok2 {
				return nil, false
			}
			if ivrs || dmar {
				return []tuneFinding{{"", "IVRS " + show(ivrs) + ", DMAR " + show(dmar)}}, true
			}
			return nil, true
		}},
	{setting: "acpi_ivrs", except: []string{"MI300A"}, guideValue: "IOMMU enabled in the BIOS (IVRS or DMAR present)",
		why:   "with the IOMMU off in the BIOS iommu=pt has no effect, and a host of 256 or more CPU threads falls back from x2APIC to 255 usable cores",
		cites: []citation{{nil, guideSABIOS, wholePage}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			ivrs, ok1 := f.nodeBool("acpi_ivrs")
			dmar, ok2 := f.nodeBool("acpi_dmar")
			if !ok1 || !ok2 {
				return nil, false
			}
			if !ivrs && !dmar {
				return []tuneFinding{{"", "no IVRS or DMAR table"}}, true
			}
			return nil, true
		}},
	{setting: "cpuidle_c2_enabled_sampled", except: []string{"MI300A"}, guideValue: "0 (C2 disabled: cpupower idle-set -d 2, or processor.max_cstate=0)",
		why:   "waking from the C2 idle state adds latency, notably to low-latency networking",
		cites: []citation{{[]string{"MI300X", "MI308X"}, guideSOX, "CPU core states"}, {nil, guideSAOS, wholePage}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			if l, ok := f.node0("cmdline_optional").([]any); ok && slices.Contains(l, any("processor.max_cstate=0")) {
				return nil, true
			}
			n, ok := f.nodeInt("cpuidle_c2_enabled_sampled")
			if !ok {
				return nil, false
			}
			if n > 0 {
				return []tuneFinding{{"", strconv.FormatInt(n, 10) + " of the sampled CPUs"}}, true
			}
			return nil, true
		}},
	{setting: "thp_enabled", products: []string{"MI300A"}, guideValue: "always",
		why:   "MI300A's unified memory needs transparent huge pages always on",
		cites: []citation{{nil, guideSA300A, "Transparent huge pages"}},
		judge: nodeIs((*tuningFacts).nodeStr, "thp_enabled", func(v string) bool { return v != "always" })},
	{setting: "compaction_proactiveness", products: []string{"MI300A"}, guideValue: "20",
		why:   "proactive compaction keeps huge pages available for MI300A's unified memory",
		cites: []citation{{nil, guideSOA, "Enable compaction"}},
		judge: nodeIs((*tuningFacts).nodeInt, "compaction_proactiveness", func(v int64) bool { return v != 20 })},
	{setting: "compact_unevictable_allowed", products: []string{"MI300A"}, guideValue: "1",
		why:   "lets compaction move unevictable pages, keeping huge pages available on MI300A",
		cites: []citation{{nil, guideSOA, "Enable compaction"}},
		judge: nodeIs((*tuningFacts).nodeInt, "compact_unevictable_allowed", func(v int64) bool { return v != 1 })},
	{setting: "online_cpus", except: []string{"MI300A"}, guideValue: "all present CPUs online (not 255)",
		why:   "exactly 255 online CPUs is the x2APIC fallback of a 256-thread host whose IOMMU is off in the BIOS",
		cites: []citation{{[]string{"MI300X", "MI308X"}, guideSOX, "IOMMU configuration -- systems with 256 CPU threads"}, {nil, guideSAOS, wholePage}},
		judge: nodeIs((*tuningFacts).nodeInt, "online_cpus", func(v int64) bool { return v == 255 })},
	{setting: "kernel_release", products: []string{"MI300A"}, guideValue: "5.18 or later",
		why:   "MI300A's Zen 4 CPU needs kernel 5.18 or later outside RHEL/SLES",
		cites: []citation{{nil, guideSA300A, wholePage}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			r, ok := f.nodeStr("kernel_release")
			if !ok {
				return nil, false
			}
			at, ok := source.KernelVersionAtLeast(r, 5, 18)
			if ok && !at {
				return []tuneFinding{{"", r}}, true
			}
			return nil, ok
		}},
	{setting: "mem_total_bytes", guideValue: "AMD's minimum system memory for the product",
		why:   "AMD sizes host memory to the GPUs' (2 TB for 8 × MI300X, 3 TB for MI350X/MI355X); less limits pinned host buffers and data loading",
		cites: []citation{{[]string{"MI300A"}, guideSA300A, wholePage}, {nil, guideSAPRE, wholePage}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			n, ok := f.nodeInt("mem_total_bytes")
			min, known := memMinTB[deref0(f.t.Product)]
			if !ok || !known {
				return nil, false
			}
			if float64(n) < min*1e12*memSlack {
				return []tuneFinding{{"", fmt.Sprintf("%.2f TB (minimum %.3g TB)", float64(n)/1e12, min)}}, true
			}
			return nil, true
		}},
	{setting: "amdgpu_initstate", guideValue: "live",
		why:   "the amdgpu module is not (fully) loaded although kfd lists its GPUs",
		cites: []citation{{nil, guideRDHC, "test_amdgpu_driver"}},
		judge: nodeIs((*tuningFacts).nodeStr, "amdgpu_initstate", func(v string) bool { return v != "live" })},
	{setting: "amdttm_pages_limit", products: []string{"MI300A"}, guideValue: "33554432 × the APUs of the node",
		why:   "the default TTM limit lets the GPU use only 96 of each APU's 128 GiB",
		cites: []citation{{nil, guideSOA, wholePage}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			n, ok := f.nodeInt("amdttm_pages_limit")
			if !ok {
				return nil, false
			}
			if want := int64(33554432 * len(f.devs)); n < want {
				return []tuneFinding{{"", fmt.Sprintf("%d (want %d)", n, want)}}, true
			}
			return nil, true
		}},
	{setting: "gpus.vis_vram_total_bytes", except: []string{"MI300A"}, guideValue: "the whole VRAM CPU-visible (Above 4G decoding: large BAR)",
		why:   "without large BAR the host sees only a window of the GPU's memory; RDHC warns",
		cites: []citation{{nil, guideSABIOS, wholePage}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			var out []tuneFinding
			judged := false
			for i, g := range f.t.GPUs {
				vis, ok := g.Settings.Get("vis_vram_total_bytes")
				n, isInt := vis.(int64)
				if !ok || !isInt || i >= len(f.devs) || f.devs[i].VRAMBytes == nil {
					continue
				}
				judged = true
				if n < *f.devs[i].VRAMBytes {
					out = append(out, tuneFinding{deref0(g.PCI), fmt.Sprintf("%d of %d bytes", n, *f.devs[i].VRAMBytes)})
				}
			}
			return out, judged
		}},
	agree("performance_level", "the level of GPUs in a collective sets their clocks: one GPU in another level runs at another speed"),
	agree("power_cap_uw", "a GPU with a lower power cap clocks lower under load and slows every collective it takes part in"),
	agreeDev("compute_partition", func(d schema.GPUDevice) *string { return d.ComputePartition }, "GPUs in different compute partition modes expose different numbers of agents and CUs"),
	agreeDev("memory_partition", func(d schema.GPUDevice) *string { return d.MemoryPartition }, "GPUs in different memory partition modes place HBM differently"),
	agree("sclk_max_mhz", "a GPU whose highest GFX clock is capped (the determinism cap, 1900 instead of 2100 MHz on MI300X) runs slower"),
	agree("pp_features", "a power-play feature on in one GPU and off in another changes its clock and power management"),
	agree("ras_features", "RAS features differ between GPUs of one node: error handling (and its cost) differs"),
	agree("xgmi_hive_id", "GPUs outside the others' XGMI hive reach them over PCIe, not Infinity Fabric"),
}

// agree is a rule that the GPUs of the node hold the same value of a
// per-GPU setting (docs/tuning.md, "GPU settings": compared across the node's GPUs as well
// as against the guides).
func agree(setting, why string) tuningRule {
	return agreeWith("gpus."+setting, why, func(f *tuningFacts) []*string {
		out := make([]*string, len(f.t.GPUs))
		for i, g := range f.t.GPUs {
			if v, _ := g.Settings.Get(setting); v != nil {
				s := show(v)
				out[i] = &s
			}
		}
		return out
	})
}

// agreeDev is agree over a value of the gpus block's devices.
func agreeDev(setting string, get func(schema.GPUDevice) *string, why string) tuningRule {
	return agreeWith("gpus."+setting, why, func(f *tuningFacts) []*string {
		out := make([]*string, len(f.devs))
		for i, d := range f.devs {
			out[i] = get(d)
		}
		return out
	})
}

func agreeWith(setting, why string, values func(*tuningFacts) []*string) tuningRule {
	return tuningRule{setting: setting, guideValue: "the same on every GPU of the node", why: why,
		cites: []citation{{nil, guideNode, "per-GPU settings compared"}},
		judge: func(f *tuningFacts) ([]tuneFinding, bool) {
			var counts pyjson.Map[int]
			read := 0
			for _, v := range values(f) {
				if v == nil {
					continue
				}
				read++
				n, _ := counts.Get(*v)
				counts.Set(*v, n+1)
			}
			if read < 2 {
				return nil, false
			}
			if len(counts) == 1 {
				return nil, true
			}
			parts := make([]string, len(counts))
			for i, e := range counts {
				parts[i] = fmt.Sprintf("%s ×%d", e.Key, e.Value)
			}
			return []tuneFinding{{"", strings.Join(parts, ", ")}}, true
		}}
}

// applies reports whether the rule judges this family and product.
func (r *tuningRule) applies(family, product string) bool {
	if r.family != "" && r.family != family {
		return false
	}
	if r.products != nil && !slices.Contains(r.products, product) {
		return false
	}
	return !slices.Contains(r.except, product)
}

// cite is the guide and section for the product.
func (r *tuningRule) cite(product string) citation {
	for _, c := range r.cites {
		if c.products == nil || slices.Contains(c.products, product) {
			return c
		}
	}
	return citation{}
}

// judgeTuning runs every rule that applies to the node's family and
// product: how many were judged, and the deviations in table order. No
// family (no Instinct GPU): nothing judged.
func judgeTuning(t *schema.Tuning, devs []schema.GPUDevice) (int, []schema.TuningDeviation) {
	out := []schema.TuningDeviation{}
	if t.Family == nil {
		return 0, out
	}
	f := &tuningFacts{t: t, devs: devs}
	family, product := *t.Family, deref0(t.Product)
	checked := 0
	for i := range tuningRules {
		r := &tuningRules[i]
		if !r.applies(family, product) {
			continue
		}
		found, judged := r.judge(f)
		if !judged {
			continue
		}
		checked++
		c := r.cite(product)
		for _, x := range found {
			scope := x.scope
			if scope == "" {
				scope = "node"
			}
			out = append(out, schema.TuningDeviation{Setting: r.setting, Scope: scope, Value: x.value,
				GuideValue: r.guideValue, Guide: c.guide, Section: c.section, Family: family, Why: r.why})
		}
	}
	return checked, out
}
