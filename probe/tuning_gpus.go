package probe

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"aorta-probe/internal/parallel"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// gpuCtx is one GPU's device directory and what its settings share: the
// hwmon directory and pp_dpm_sclk (read once; the state reuses it).
type gpuCtx struct {
	src source.FS
	dir string // /sys/bus/pci/devices/<pci>

	hwmonOnce sync.Once
	hwmon     string
	hwmonErr  error

	sclkOnce sync.Once
	sclk     []source.DPMLevel
	sclkErr  error
}

func (g *gpuCtx) hwmonDir() (string, error) {
	g.hwmonOnce.Do(func() { g.hwmon, g.hwmonErr = g.src.AMDGPUHwmon(g.dir) })
	return g.hwmon, g.hwmonErr
}

func (g *gpuCtx) sclkLevels() ([]source.DPMLevel, error) {
	g.sclkOnce.Do(func() {
		p := g.dir + "/pp_dpm_sclk"
		s, err := g.src.Attr(p)
		if err != nil {
			g.sclkErr = err
			return
		}
		l, ok := source.ParseDPMLevels(s)
		if !ok {
			g.sclkErr = formatErr(p)
		}
		g.sclk = l
	})
	return g.sclk, g.sclkErr
}

// performanceLevels are the words power_dpm_force_performance_level
// writes (amdgpu_pm.c).
var performanceLevels = []string{"auto", "low", "high", "manual", "profile_standard", "profile_min_sclk",
	"profile_min_mclk", "profile_peak", "perf_determinism", "profile_exit", "unknown"}

// gpuWord reads an attribute of the device holding one of words.
func gpuWord(name string, words []string) func(*gpuCtx) (any, error) {
	return func(g *gpuCtx) (any, error) {
		s, err := g.src.Attr(g.dir + "/" + name)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(words, s) {
			return nil, formatErr(g.dir + "/" + name)
		}
		return s, nil
	}
}

// gpuInt reads an integer attribute of the device.
func gpuInt(name string) func(*gpuCtx) (any, error) {
	return func(g *gpuCtx) (any, error) { return val(g.src.AttrInt(g.dir + "/" + name)) }
}

// hwmonInt reads an integer file of the device's hwmon directory.
func hwmonInt(name string) func(*gpuCtx) (any, error) {
	return func(g *gpuCtx) (any, error) {
		h, err := g.hwmonDir()
		if err != nil {
			return nil, err
		}
		return val(g.src.AttrInt(h + "/" + name))
	}
}

// gpuParsed reads an attribute and keeps what parse makes of it.
func gpuParsed(name string, parse func(string) (string, bool)) func(*gpuCtx) (any, error) {
	return func(g *gpuCtx) (any, error) {
		p := g.dir + "/" + name
		s, err := g.src.Attr(p)
		if err != nil {
			return nil, err
		}
		v, ok := parse(s)
		if !ok || len(v) > wordMax {
			return nil, formatErr(p)
		}
		return v, nil
	}
}

// sclkBound is the lowest (hi false) or highest level of pp_dpm_sclk.
func sclkBound(hi bool) func(*gpuCtx) (any, error) {
	return func(g *gpuCtx) (any, error) {
		l, err := g.sclkLevels()
		if err != nil {
			return nil, err
		}
		lo, high, ok := source.DPMRange(l)
		if !ok {
			return nil, formatErr(g.dir + "/pp_dpm_sclk")
		}
		if hi {
			return high, nil
		}
		return lo, nil
	}
}

// gpuSettings are the per-GPU settings (docs/tuning.md, "GPU settings"), in its order;
// sources are under the device directory. The partition modes, VRAM size
// and NUMA node are the gpus block's (read there once, not again).
var gpuSettings = []tuningSetting[*gpuCtx]{
	{"performance_level", "power_dpm_force_performance_level", gpuWord("power_dpm_force_performance_level", performanceLevels)},
	{"power_cap_uw", "hwmon/hwmon*/power1_cap", hwmonInt("power1_cap")},
	{"power_cap_max_uw", "hwmon/hwmon*/power1_cap_max", hwmonInt("power1_cap_max")},
	{"power_cap_min_uw", "hwmon/hwmon*/power1_cap_min", hwmonInt("power1_cap_min")},
	{"power_cap_default_uw", "hwmon/hwmon*/power1_cap_default", hwmonInt("power1_cap_default")},
	{"soc_pstate", "pm_policy/soc_pstate", gpuParsed("pm_policy/soc_pstate", source.ParsePMPolicy)},
	{"xgmi_plpd", "pm_policy/xgmi_plpd", gpuParsed("pm_policy/xgmi_plpd", source.ParsePMPolicy)},
	{"sclk_min_mhz", "pp_dpm_sclk (first level)", sclkBound(false)},
	{"sclk_max_mhz", "pp_dpm_sclk (last level)", sclkBound(true)},
	{"pp_features", "pp_features (Current ppfeatures mask)", gpuParsed("pp_features", source.ParsePPFeatures)},
	{"vis_vram_total_bytes", "mem_info_vis_vram_total", gpuInt("mem_info_vis_vram_total")},
	{"local_cpulist", "local_cpulist", gpuParsed("local_cpulist", func(s string) (string, bool) {
		_, ok := source.ParseCPUList(s)
		return s, ok
	})},
	{"xgmi_hive_id", "xgmi_hive_info/xgmi_hive_id", gpuParsed("xgmi_hive_info/xgmi_hive_id", func(s string) (string, bool) {
		_, err := strconv.ParseUint(s, 10, 64)
		return s, err == nil
	})},
	{"thermal_throttling_logging", "thermal_throttling_logging", gpuParsed("thermal_throttling_logging", func(s string) (string, bool) {
		on, iv, ok := source.ParseThermalThrottlingLogging(s)
		if on {
			return fmt.Sprintf("enabled, every %d s", iv), ok
		}
		return "disabled", ok
	})},
	{"ras_features", "ras/features (feature mask)", gpuParsed("ras/features", source.ParseRASFeatures)},
	{"iommu_group_type", "iommu_group -> /sys/kernel/iommu_groups/<n>/type", func(g *gpuCtx) (any, error) {
		typ, _, err := g.src.DeviceIOMMUGroupType(g.dir)
		return val(typ, err)
	}},
}

// tuningGPUDir is the PCI device directory of a GPU.
func tuningGPUDir(pci string) string { return "/sys/bus/pci/devices/" + pci }

// readTuningGPUs is the settings of each GPU of the gpus block (the
// first gpusMaxDRMDevices, as the gpus block reads their amdgpu
// attributes): read ahead (prefetchGPUs), else read now, spread over the
// workers; ctxs keep what the state reuses.
func readTuningGPUs(src source.FS, devs []schema.GPUDevice, ahead map[string]prefetched, workers int) ([]schema.TuningGPU, []*gpuCtx) {
	out := make([]schema.TuningGPU, len(devs))
	ctxs := make([]*gpuCtx, len(devs))
	parallel.Spread(len(devs), workers, func(i int) {
		d := devs[i]
		g := schema.TuningGPU{PCI: d.PCI, Settings: pyjson.Map[any]{}, Unread: pyjson.Map[string]{}}
		switch {
		case d.PCI == nil:
			// No address, no device directory: nothing to read, said
			// once ("*"), so that a hostile tree of many such GPUs
			// stays small.
			g.Unread.Set("*", "absent")
		case i >= gpusMaxDRMDevices:
			// Past the cap on DRM devices (gpus_bounds.go): not read.
			g.Unread.Set("*", "ECAP")
		case ahead[*d.PCI].ctx != nil:
			g, ctxs[i] = ahead[*d.PCI].g, ahead[*d.PCI].ctx
		default:
			g.Dir = schema.Str(tuningGPUDir(*d.PCI))
			ctxs[i] = &gpuCtx{src: src, dir: *g.Dir}
			g.Settings, g.Unread = readSettings(gpuSettings, ctxs[i])
		}
		out[i] = g
	})
	return out, ctxs
}

// The state of one GPU (docs/tuning.md, "Not in the default run"), read only with --tuning-state:
// every one of these files is a per-moment value or a counter, and
// several are not free to read (docs/tuning.md, "Not in the default
// run"): a DPM or hwmon read wakes the device and messages its SMU, an
// *_err_count read queries and resets the hardware status. xgmi_error
// (reading clears it) and gpu_metrics are never read.
var gpuStateFiles = []tuningSetting[*gpuCtx]{
	{"sclk_current_mhz", "pp_dpm_sclk (level marked *; read once, with the settings)", func(g *gpuCtx) (any, error) {
		l, err := g.sclkLevels()
		if err != nil {
			return nil, err
		}
		return activeMHz(g.dir+"/pp_dpm_sclk", l)
	}},
	{"mclk_current_mhz", "pp_dpm_mclk (level marked *)", dpmActive("pp_dpm_mclk")},
	{"fclk_current_mhz", "pp_dpm_fclk (level marked *)", dpmActive("pp_dpm_fclk")},
	{"socclk_current_mhz", "pp_dpm_socclk (level marked *)", dpmActive("pp_dpm_socclk")},
	{"power_uw", "hwmon/hwmon*/power1_input", hwmonInt("power1_input")},
	{"temp_edge_mc", "hwmon/hwmon*/temp1_input", hwmonInt("temp1_input")},
	{"temp_junction_mc", "hwmon/hwmon*/temp2_input", hwmonInt("temp2_input")},
	{"temp_mem_mc", "hwmon/hwmon*/temp3_input", hwmonInt("temp3_input")},
	{"gpu_busy_percent", "gpu_busy_percent", gpuInt("gpu_busy_percent")},
	{"mem_busy_percent", "mem_busy_percent", gpuInt("mem_busy_percent")},
	{"vram_used_bytes", "mem_info_vram_used", gpuInt("mem_info_vram_used")},
	{"vis_vram_used_bytes", "mem_info_vis_vram_used", gpuInt("mem_info_vis_vram_used")},
	{"gtt_used_bytes", "mem_info_gtt_used", gpuInt("mem_info_gtt_used")},
	{"ras_err_counts", "ras/<block>_err_count (every one; ue, ce, de)", (*gpuCtx).rasCounts},
	{"bad_pages", "ras/gpu_vram_bad_pages (lines)", func(g *gpuCtx) (any, error) {
		p := g.dir + "/ras/gpu_vram_bad_pages"
		b, err := g.src.Attr(p)
		if errors.Is(err, source.ErrParse) { // empty: no retired page
			return 0, nil
		}
		if err != nil {
			return nil, err
		}
		n, ok := source.ParseBadPages(b)
		if !ok {
			return nil, formatErr(p)
		}
		return n, nil
	}},
	{"pcie_replay_count", "pcie_replay_count", gpuInt("pcie_replay_count")},
	{"aer_correctable", "aer_dev_correctable (TOTAL_ERR_COR)", aerTotal("aer_dev_correctable")},
	{"aer_fatal", "aer_dev_fatal (TOTAL_ERR_FATAL)", aerTotal("aer_dev_fatal")},
	{"aer_nonfatal", "aer_dev_nonfatal (TOTAL_ERR_NONFATAL)", aerTotal("aer_dev_nonfatal")},
}

func activeMHz(p string, l []source.DPMLevel) (any, error) {
	for _, x := range l {
		if x.Active {
			return x.MHz, nil
		}
	}
	return nil, formatErr(p)
}

func dpmActive(name string) func(*gpuCtx) (any, error) {
	return func(g *gpuCtx) (any, error) {
		p := g.dir + "/" + name
		s, err := g.src.Attr(p)
		if err != nil {
			return nil, err
		}
		l, ok := source.ParseDPMLevels(s)
		if !ok {
			return nil, formatErr(p)
		}
		return activeMHz(p, l)
	}
}

func aerTotal(name string) func(*gpuCtx) (any, error) {
	return func(g *gpuCtx) (any, error) {
		p := g.dir + "/" + name
		s, err := g.src.Attr(p)
		if err != nil {
			return nil, err
		}
		n, ok := source.ParseAERTotal(s)
		if !ok {
			return nil, formatErr(p)
		}
		return n, nil
	}
}

// rasBlocksMax bounds the ras directory listing (amdgpu has about 20
// entries: one *_err_count per block, features, bad pages, version).
const rasBlocksMax = 64

// rasCounts reads every ras/<block>_err_count once: {"umc": {"ue": 0,
// "ce": 1}, …} in name order. xgmi_error is no such file and is never
// read.
func (g *gpuCtx) rasCounts() (any, error) {
	dir := g.dir + "/ras"
	es, more, err := g.src.ReadDirMax(dir, rasBlocksMax)
	if err != nil {
		return nil, err
	}
	if more {
		return nil, formatErr(dir)
	}
	out := pyjson.Map[any]{}
	for _, e := range es {
		block, ok := strings.CutSuffix(e.Name(), "_err_count")
		if !ok || block == "" {
			continue
		}
		s, err := g.src.Attr(dir + "/" + e.Name())
		counts, parsed := source.ParseRASCount(s)
		if err != nil || !parsed {
			out.Set(block, nil) // unreadable, or "Query currently inaccessible"
			continue
		}
		m := pyjson.Map[any]{}
		for _, k := range []string{"ue", "ce", "de"} {
			if n, ok := counts[k]; ok {
				m.Set(k, n)
			}
		}
		out.Set(block, m)
	}
	return out, nil
}

// readTuningState reads the state of each GPU whose settings were read.
func readTuningState(ctxs []*gpuCtx, workers int) *schema.TuningState {
	st := &schema.TuningState{GPUs: make([]schema.TuningStateGPU, len(ctxs)), Sources: pyjson.Map[string]{}}
	for _, s := range gpuStateFiles {
		st.Sources.Set(s.name, s.source)
	}
	parallel.Spread(len(ctxs), workers, func(i int) {
		if ctxs[i] == nil {
			st.GPUs[i] = schema.TuningStateGPU{Values: pyjson.Map[any]{}, Unread: pyjson.Map[string]{}}
			return
		}
		vals, unread := readSettings(gpuStateFiles, ctxs[i])
		pci := strings.TrimPrefix(ctxs[i].dir, "/sys/bus/pci/devices/")
		st.GPUs[i] = schema.TuningStateGPU{PCI: &pci, Values: vals, Unread: unread}
	})
	return st
}
