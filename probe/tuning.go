package probe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/parallel"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// probe_provenance.tuning (docs/tuning.md): the node and GPU settings
// AMD's Instinct guides name, read from /proc and /sys through the
// probed root (internal/source), then judged by the rules of
// tuning_rules.go. Files only, no command. The node settings are read
// beside the probes (startTuning), the GPU settings once the gpus block
// has named the GPUs (finishTuning).

// tuningCtx is what the node settings share: the command line and the
// online CPUs, each read once.
type tuningCtx struct {
	src     source.FS
	workers int

	cmdOnce sync.Once
	cmdline source.Cmdline
	cmdErr  error

	cpuOnce   sync.Once
	online    []int
	onlineErr error
}

func (c *tuningCtx) cmd() (source.Cmdline, error) {
	c.cmdOnce.Do(func() { c.cmdline, c.cmdErr = c.src.Cmdline() })
	return c.cmdline, c.cmdErr
}

func (c *tuningCtx) onlineCPUs() ([]int, error) {
	c.cpuOnce.Do(func() { c.online, c.onlineErr = c.src.CPUs("online") })
	return c.online, c.onlineErr
}

// tuningSetting is one setting: its name in the block, where it is read
// (Tuning.Sources) and how.
type tuningSetting[C any] struct {
	name, source string
	read         func(c C) (any, error)
}

// cmdToken is a command-line setting: whether the tokens hold it.
func cmdToken(has func(source.Cmdline) bool) func(*tuningCtx) (any, error) {
	return func(c *tuningCtx) (any, error) {
		l, err := c.cmd()
		if err != nil {
			return nil, err
		}
		return has(l), nil
	}
}

// optionSet is a cmdline key whose comma-separated options include opt.
func optionSet(key, opt string) func(source.Cmdline) bool {
	return func(l source.Cmdline) bool { return slices.Contains(l.Options(key), opt) }
}

// cmdlineOptional are the boot parameters AMD's System Acceptance
// kernel-parameter page lists as optional for performance (tuning.md
// K8), recorded when present.
var cmdlineOptional = []string{
	"nokaslr", "norandmaps", "mitigations=off", "pcie_aspm=off", "processor.max_cstate=0",
	"biosdevname=0", "quiet", "transparent_hugepage=always", "tsc=nowatchdog", "nmi_watchdog=0",
	"nowatchdog", "numa_balancing=disable",
}

// wordMax bounds a one-word value kept (a governor, a driver, a kernel
// release): longer is not the kernel's word.
const wordMax = 128

// oneWord checks s is one short word.
func oneWord(p, s string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if len(s) > wordMax || strings.ContainsAny(s, " \t\n") {
		return nil, formatErr(p)
	}
	return s, nil
}

// formatErr is a value that is not in its file's format.
func formatErr(p string) error {
	return &source.Error{Kind: source.ErrParse, Path: p, Err: errors.New("not in its format")}
}

func val[T any](v T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// nodeSettings are the node-wide settings (docs/tuning.md, "Node settings"), in its order.
var nodeSettings = []tuningSetting[*tuningCtx]{
	{"numa_balancing", "/proc/sys/kernel/numa_balancing", func(c *tuningCtx) (any, error) { return val(c.src.NUMABalancing()) }},
	{"cmdline_pci_realloc_off", "/proc/cmdline", cmdToken(optionSet("pci", "realloc=off"))},
	{"cmdline_pci_bfsort", "/proc/cmdline", cmdToken(optionSet("pci", "bfsort"))},
	{"cmdline_iommu_pt", "/proc/cmdline", cmdToken(func(l source.Cmdline) bool { v, _ := l.Value("iommu"); return v == "pt" })},
	{"cmdline_amd_iommu_on", "/proc/cmdline", cmdToken(optionSet("amd_iommu", "on"))},
	{"cmdline_intel_iommu_on", "/proc/cmdline", cmdToken(optionSet("intel_iommu", "on"))},
	{"iommu_groups", "/sys/kernel/iommu_groups", func(c *tuningCtx) (any, error) { return val(c.src.IOMMUGroups()) }},
	// Filled from the GPUs' own groups by finishTuning.
	{"iommu_gpu_group_type", "the GPUs' iommu_group_type", nil},
	{"acpi_ivrs", "/sys/firmware/acpi/tables/IVRS", func(c *tuningCtx) (any, error) { return val(c.src.ACPITable("IVRS")) }},
	{"acpi_dmar", "/sys/firmware/acpi/tables/DMAR", func(c *tuningCtx) (any, error) { return val(c.src.ACPITable("DMAR")) }},
	{"cmdline_amdgpu_blacklisted", "/proc/cmdline", cmdToken(optionSet("modprobe.blacklist", "amdgpu"))},
	{"cmdline_optional", "/proc/cmdline", func(c *tuningCtx) (any, error) {
		l, err := c.cmd()
		if err != nil {
			return nil, err
		}
		out := []any{}
		for _, t := range cmdlineOptional {
			if l.Has(t) {
				out = append(out, t)
			}
		}
		return out, nil
	}},
	{"cpuidle_driver", "/sys/devices/system/cpu/cpuidle/current_driver", func(c *tuningCtx) (any, error) {
		s, err := c.src.CPUIdleDriver()
		return oneWord("/sys/devices/system/cpu/cpuidle/current_driver", s, err)
	}},
	{"cpuidle_c2_enabled_sampled", "/sys/devices/system/cpu/cpu<n>/cpuidle/state<C2>/disable (16 online CPUs sampled)", (*tuningCtx).c2Enabled},
	{"thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled", func(c *tuningCtx) (any, error) {
		s, err := c.src.THPEnabled()
		return oneWord("/sys/kernel/mm/transparent_hugepage/enabled", s, err)
	}},
	{"compaction_proactiveness", "/proc/sys/vm/compaction_proactiveness", func(c *tuningCtx) (any, error) { return val(c.src.CompactionProactiveness()) }},
	{"compact_unevictable_allowed", "/proc/sys/vm/compact_unevictable_allowed", func(c *tuningCtx) (any, error) { return val(c.src.CompactUnevictableAllowed()) }},
	{"smt_control", "/sys/devices/system/cpu/smt/control", func(c *tuningCtx) (any, error) { return val(c.src.SMTControl()) }},
	{"smt_active", "/sys/devices/system/cpu/smt/active", func(c *tuningCtx) (any, error) { return val(c.src.SMTActive()) }},
	{"online_cpus", "/sys/devices/system/cpu/online", func(c *tuningCtx) (any, error) {
		l, err := c.onlineCPUs()
		return val(len(l), err)
	}},
	{"present_cpus", "/sys/devices/system/cpu/present", func(c *tuningCtx) (any, error) {
		l, err := c.src.CPUs("present")
		return val(len(l), err)
	}},
	{"numa_nodes_per_socket", "/sys/devices/system/node/node<n>/cpulist, cpu<n>/topology/package_cpus_list", (*tuningCtx).nodesPerSocket},
	{"pcie_aspm_policy", "/sys/module/pcie_aspm/parameters/policy", func(c *tuningCtx) (any, error) {
		s, err := c.src.PCIeASPMPolicy()
		return oneWord("/sys/module/pcie_aspm/parameters/policy", s, err)
	}},
	{"cpufreq_governor", "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor", func(c *tuningCtx) (any, error) {
		s, err := c.src.CPUFreq("scaling_governor")
		return oneWord("/sys/devices/system/cpu/cpufreq/policy0/scaling_governor", s, err)
	}},
	{"cpufreq_driver", "/sys/devices/system/cpu/cpufreq/policy0/scaling_driver", func(c *tuningCtx) (any, error) {
		s, err := c.src.CPUFreq("scaling_driver")
		return oneWord("/sys/devices/system/cpu/cpufreq/policy0/scaling_driver", s, err)
	}},
	{"cpufreq_boost", "/sys/devices/system/cpu/cpufreq/boost", func(c *tuningCtx) (any, error) { return val(c.src.CPUFreqBoost()) }},
	{"kernel_release", "/proc/sys/kernel/osrelease", func(c *tuningCtx) (any, error) {
		s, err := c.src.KernelRelease()
		return oneWord("/proc/sys/kernel/osrelease", s, err)
	}},
	{"mem_total_bytes", "/proc/meminfo (MemTotal)", func(c *tuningCtx) (any, error) { return val(c.src.MemTotal()) }},
	{"amdgpu_initstate", "/sys/module/amdgpu/initstate", func(c *tuningCtx) (any, error) {
		s, err := c.src.ModuleInitstate("amdgpu")
		return oneWord("/sys/module/amdgpu/initstate", s, err)
	}},
	{"amdgpu_cwsr_enable", "/sys/module/amdgpu/parameters/cwsr_enable", moduleInt("amdgpu", "cwsr_enable")},
	{"amdttm_pages_limit", "/sys/module/amdttm/parameters/pages_limit", moduleInt("amdttm", "pages_limit")},
	{"amdttm_page_pool_size", "/sys/module/amdttm/parameters/page_pool_size", moduleInt("amdttm", "page_pool_size")},
}

func moduleInt(module, name string) func(*tuningCtx) (any, error) {
	return func(c *tuningCtx) (any, error) {
		s, err := c.src.ModuleParam(module, name)
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, formatErr("/sys/module/" + module + "/parameters/" + name)
		}
		return n, nil
	}
}

// c2Sample is how many online CPUs c2Enabled reads at most: the first,
// the last and others evenly between (cpupower idle-set -d 2 writes every
// CPU's disable; a node where only some CPUs were changed by hand can be
// missed). Reading all 256 CPUs of a large node cost more than the whole
// rest of the block (docs/tuning.md, "Cost").
const c2Sample = 16

// c2Enabled counts, among the sampled online CPUs (c2Sample), those whose
// idle state named C2 is enabled (disable 0). The state index is found
// once, on the first online CPU; then one small read per sampled CPU,
// spread over the workers. No state named C2: absent.
func (c *tuningCtx) c2Enabled() (any, error) {
	online, err := c.onlineCPUs()
	if err != nil {
		return nil, err
	}
	if len(online) == 0 {
		return nil, formatErr("/sys/devices/system/cpu/online")
	}
	k, err := c.src.CPUIdleState(online[0], "C2")
	if err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, machine.PathErr("open", fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpuidle/state*/name (C2)", online[0]), syscall.ENOENT)
	}
	cpus := sampleCPUs(online, c2Sample)
	enabled := make([]bool, len(cpus))
	errs := make([]error, len(cpus))
	parallel.Spread(len(cpus), c.workers, func(i int) {
		d, err := c.src.CPUIdleDisabled(cpus[i], k)
		enabled[i], errs[i] = !d, err
	})
	n := 0
	for i := range cpus {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if enabled[i] {
			n++
		}
	}
	return n, nil
}

// sampleCPUs is at most n of cpus: all when there are no more, else the
// first, the last and n-2 evenly between.
func sampleCPUs(cpus []int, n int) []int {
	if len(cpus) <= n {
		return cpus
	}
	out := make([]int, n)
	for i := range n {
		out[i] = cpus[i*(len(cpus)-1)/(n-1)]
	}
	return out
}

// nodesPerSocket is the CPU-bearing NUMA nodes per socket (tuning.md
// K14, BIOS NPS derived): nodes with CPUs, over sockets = online CPUs /
// CPUs of the first online CPU's package. Memory-only nodes (HBM, CXL)
// do not count.
func (c *tuningCtx) nodesPerSocket() (any, error) {
	nodes, err := c.src.NUMANodes()
	if err != nil {
		return nil, err
	}
	online, err := c.onlineCPUs()
	if err != nil {
		return nil, err
	}
	if len(online) == 0 {
		return nil, formatErr("/sys/devices/system/cpu/online")
	}
	pkg, err := c.src.PackageCPUs(online[0])
	if err != nil {
		return nil, err
	}
	withCPUs := 0
	for _, n := range nodes {
		if n.CPUs > 0 {
			withCPUs++
		}
	}
	sockets := max(1, (len(online)+len(pkg)/2)/len(pkg))
	if withCPUs == 0 || withCPUs%sockets != 0 {
		return nil, formatErr("/sys/devices/system/node")
	}
	return withCPUs / sockets, nil
}

// tuningNode is the node settings as read, and the GPUs' settings read
// ahead by PCI address (prefetchGPUs).
type tuningNode struct {
	values pyjson.Map[any]
	unread pyjson.Map[string]
	gpus   map[string]prefetched
	panic  string // why reading them panicked, or ""
}

// prefetched is one GPU's settings read before the gpus block named it.
type prefetched struct {
	g   schema.TuningGPU
	ctx *gpuCtx
}

// amdgpuDriverDir lists the PCI devices bound to amdgpu, each a link to
// its device directory (docs/tuning.md, "Shape").
const amdgpuDriverDir = "/sys/bus/pci/drivers/amdgpu"

// prefetchGPUs reads the settings of every PCI device amdgpu drives
// (amdgpuDriverDir, at most gpusMaxDRMDevices, names shaped like PCI
// addresses) beside the probes, so that the gpus block's answer leaves
// only the join and the rules; a GPU the gpus block names that is not
// here is read then. Nothing when the directory cannot be listed.
func prefetchGPUs(src source.FS, workers int) map[string]prefetched {
	es, _, err := src.ReadDirMax(amdgpuDriverDir, gpusMaxDRMDevices+16)
	if err != nil {
		return nil
	}
	var pcis []string
	for _, e := range es {
		if isPCIAddress(e.Name()) && len(pcis) < gpusMaxDRMDevices {
			pcis = append(pcis, e.Name())
		}
	}
	out := make([]prefetched, len(pcis))
	parallel.Spread(len(pcis), workers, func(i int) {
		pci := pcis[i]
		c := &gpuCtx{src: src, dir: tuningGPUDir(pci)}
		g := schema.TuningGPU{PCI: &pci, Dir: schema.Str(c.dir)}
		g.Settings, g.Unread = readSettings(gpuSettings, c)
		out[i] = prefetched{g, c}
	})
	m := make(map[string]prefetched, len(out))
	for _, p := range out {
		m[*p.g.PCI] = p
	}
	return m
}

// isPCIAddress reports whether s is shaped dddd:bb:dd.f (hex digits).
func isPCIAddress(s string) bool {
	if len(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.' {
		return false
	}
	for i, r := range s {
		if i == 4 || i == 7 || i == 10 {
			continue
		}
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// readSettings reads each setting of the table with c, in order.
func readSettings[C any](table []tuningSetting[C], c C) (vals pyjson.Map[any], unread pyjson.Map[string]) {
	vals, unread = make(pyjson.Map[any], 0, len(table)), pyjson.Map[string]{}
	for _, s := range table {
		if s.read == nil {
			vals.Set(s.name, nil)
			continue
		}
		v, err := s.read(c)
		vals.Set(s.name, v)
		if err != nil {
			vals.Set(s.name, nil)
			unread.Set(s.name, unreadWhy(err))
		}
	}
	return vals, unread
}

// unreadWhy is a Tuning unread entry: "absent" for a missing file (or
// a missing directory above it), the errno's name for one there but
// unreadable, EFORMAT for content not in its format.
func unreadWhy(err error) string {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "absent"
	}
	if errors.Is(err, source.ErrParse) || errors.Is(err, source.ErrName) {
		return "EFORMAT"
	}
	if en, ok := pyfmt.Errno(err); ok {
		switch en {
		case syscall.ENODATA:
			return "ENODATA"
		case syscall.ELOOP:
			return "ELOOP"
		}
		return archive.ErrnoName(en)
	}
	return "EIO"
}

// startTuning reads the node settings on their own goroutine, beside the
// probes, as the gpus block is read, and with prefetch the settings of
// the GPUs amdgpu drives (prefetchGPUs: only where the probe reads them
// itself, gpuReader).
func startTuning(root *machine.FS, workers int, prefetch bool) <-chan tuningNode {
	ch := make(chan tuningNode, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- tuningNode{panic: fmt.Sprint(v)}
			}
		}()
		src := source.NewFS(root)
		vals, unread := readSettings(nodeSettings, &tuningCtx{src: src, workers: workers})
		node := tuningNode{values: vals, unread: unread}
		if prefetch {
			node.gpus = prefetchGPUs(src, workers)
		}
		ch <- node
	}()
	return ch
}

// finishTuning awaits the node settings, takes each GPU's settings (and
// its state with state) from the GPU reader (gpus_detached.go: child
// non-nil) or reads them here, and judges them. A collection that ended
// first leaves the block with its reason only.
func finishTuning(ctx context.Context, root *machine.FS, ch <-chan tuningNode, child <-chan detachedTuning, g schema.GPUs, state bool, workers int) schema.Tuning {
	node, ok := awaitTuning(ctx, ch)
	if !ok {
		return emptyTuning("not finished (collection interrupted)")
	}
	if node.panic != "" {
		return emptyTuning("panic while reading the settings: " + node.panic)
	}
	t := schema.Tuning{Node: node.values, NodeUnread: node.unread, Sources: tuningSources(), Deviations: []schema.TuningDeviation{}}
	t.Family, t.Product = tuningFamily(g.Devices)
	if child == nil {
		gpus, ctxs := readTuningGPUs(source.NewFS(root), g.Devices, node.gpus, workers)
		t.GPUs = gpus
		if state {
			t.State = readTuningState(ctxs, workers)
		}
	} else {
		d, ok := awaitTuning(ctx, child)
		if !ok {
			return emptyTuning("not finished (collection interrupted)")
		}
		if d.Panic != "" {
			return emptyTuning("panic while reading the settings: " + d.Panic)
		}
		t.GPUs, t.State = d.GPUs, d.State
		if t.GPUs == nil { // a reader that failed: the gpus block names no GPU
			t.GPUs = []schema.TuningGPU{}
		}
		if state && t.State == nil {
			t.State = readTuningState(nil, workers)
		}
	}
	setGPUGroupType(&t)
	t.Checked, t.Deviations = judgeTuning(&t, g.Devices)
	return t
}

// awaitTuning receives from ch until ctx ends, then only what is there.
func awaitTuning[T any](ctx context.Context, ch <-chan T) (T, bool) {
	select {
	case v := <-ch:
		return v, true
	case <-ctx.Done():
		select {
		case v := <-ch:
			return v, true
		default:
			var zero T
			return zero, false
		}
	}
}

// emptyTuning is the block with nothing read, and why.
func emptyTuning(reason string) schema.Tuning {
	return schema.Tuning{Node: pyjson.Map[any]{}, NodeUnread: pyjson.Map[string]{}, GPUs: []schema.TuningGPU{},
		Sources: pyjson.Map[string]{}, Deviations: []schema.TuningDeviation{}, Reason: &reason}
}

// tuningSources is Tuning.Sources: every node setting's path, then every
// GPU setting's under gpus[].dir.
func tuningSources() pyjson.Map[string] {
	out := make(pyjson.Map[string], 0, len(nodeSettings)+len(gpuSettings))
	for _, s := range nodeSettings {
		out = append(out, pyjson.Entry[string]{Key: s.name, Value: s.source})
	}
	for _, s := range gpuSettings {
		out = append(out, pyjson.Entry[string]{Key: "gpus." + s.name, Value: s.source})
	}
	return out
}

// instinctProducts are the Instinct products by PCI device id (tuning.md
// fact sheet: System Acceptance "Check GPU presence"; MI300A from its page).
var instinctProducts = map[string]string{
	"0x74a1": "MI300X", "0x74a2": "MI308X", "0x74a5": "MI325X", "0x74a0": "MI300A",
	"0x75a0": "MI350X", "0x75a3": "MI355X",
}

// tuningFamily is the rule family and product of the node: from the first
// GPU with an Instinct gfx target (gfx942: MI300, gfx950: MI350) and its
// PCI device id (probe_provenance.gpus devices[].gfx_target, device_id:
// nothing is read again).
func tuningFamily(devs []schema.GPUDevice) (family, product *string) {
	for _, d := range devs {
		var f string
		switch deref0(d.GfxTarget) {
		case "gfx942":
			f = "MI300"
		case "gfx950":
			f = "MI350"
		default:
			continue
		}
		if p, ok := instinctProducts[strings.ToLower(deref0(d.DeviceID))]; ok {
			product = &p
		}
		return &f, product
	}
	return nil, nil
}

// setGPUGroupType fills the node's iommu_gpu_group_type from the GPUs'
// iommu_group_type: the one type they share, else their types joined
// ("DMA, identity"); unread as the first GPU's when none was read.
func setGPUGroupType(t *schema.Tuning) {
	const name = "iommu_gpu_group_type"
	var types []string
	why := "absent"
	for i, gp := range t.GPUs {
		v, _ := gp.Settings.Get("iommu_group_type")
		if s, ok := v.(string); ok {
			if !slices.Contains(types, s) {
				types = append(types, s)
			}
		} else if w, ok := gp.Unread.Get("iommu_group_type"); ok && i == 0 {
			why = w
		}
	}
	if len(types) == 0 {
		// In the table's order, as readSettings keeps it.
		unread := pyjson.Map[string]{}
		for _, k := range t.Node.Keys() {
			if k == name {
				unread.Set(k, why)
			} else if w, ok := t.NodeUnread.Get(k); ok {
				unread.Set(k, w)
			}
		}
		t.NodeUnread = unread
		return
	}
	slices.Sort(types)
	t.Node.Set(name, strings.Join(types, ", "))
}

// tuningBlock names the tuning row of the probe table (a beside row, no
// probe record), as a capture's cut names it when it ended first.
const tuningBlock = "probe_provenance.tuning"

// readTuning is the tuning row: the node settings read beside the
// probes (startTuning) and each GPU's, read by the GPU reader after the
// gpus block (gpuReader) or here, joined to the gpus block once its row
// is in and judged (finishTuning). A gpus block the collection ended
// before leaves this one unfinished too (await marks the row
// interrupted), and gatherBeside stores unfinishedTuning.
func readTuning(s *state) schema.Tuning {
	r := s.gpuReader(gpusWorkers(s.opt))
	ch := startTuning(s.root, gpusWorkers(s.opt), r.prefetch)
	g, ok := await(s, blockKey[schema.GPUs](gpusBlock))
	if !ok {
		s.interrupted.Store(true)
		return unfinishedTuning(s.interruption())
	}
	t := finishTuning(s.ctx, s.root, ch, r.tuning, g, s.opt.TuningState, gpusWorkers(s.opt))
	if s.ctx.Err() != nil && t.Reason != nil {
		s.interrupted.Store(true)
	}
	return t
}

// unfinishedTuning is the block the collection ended before, with the
// cause ("collection interrupted", "deadline of 60s exceeded").
func unfinishedTuning(why string) schema.Tuning { return emptyTuning("not finished (" + why + ")") }
