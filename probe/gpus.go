package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strconv"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/parallel"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// collectGPUs is probe_provenance.gpus
// (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are):
// the kfd topology's GPU nodes grouped into physical GPUs, each with the
// amdgpu attributes of its DRM device. Files only, no command; every read
// goes through root, so --root, capture and replay carry it. The nodes,
// then the devices, are read on up to workers goroutines (gpusWorkers).
//
// Sources: /sys/class/kfd/kfd/topology/nodes/<n>/properties
// (internal/source/sys_class_kfd.go), /sys/class/drm/renderD<minor>/device/*
// (internal/source/sys_class_drm_amdgpu.go); gpus_map.go words their
// reasons.
func collectGPUs(root *machine.FS, workers int) schema.GPUs {
	g := schema.GPUs{Hives: []schema.GPUHive{}, Devices: []schema.GPUDevice{}}
	src := source.NewFS(root)
	nodes, err := src.KFDNodes(workers)
	var reason string
	if err != nil {
		reason = kfdReason(err)
	}
	if nodes == nil && reason != "" {
		g.Reason = &reason
		return g
	}
	g.Source = schema.Str(source.KFDNodesDir)

	groups, partitions := groupGPUs(nodes)
	sortGroups(groups)
	devices := make([]schema.GPUDevice, len(groups))
	parallel.Spread(len(groups), workers, func(i int) {
		devices[i] = gpuDevice(src, groups[i].nodes, i < gpusMaxDRMDevices)
		if notes := groups[i].notes; len(notes) > 0 {
			if devices[i].Reasons != nil {
				notes = append(notes, *devices[i].Reasons...)
			}
			devices[i].Reasons = &notes
		}
	})
	hives := map[string]int{}
	for _, d := range devices {
		if d.HiveID != nil && d.PCI != nil {
			j, ok := hives[*d.HiveID]
			if !ok {
				j = len(g.Hives)
				hives[*d.HiveID] = j
				g.Hives = append(g.Hives, schema.GPUHive{HiveID: *d.HiveID, Devices: []string{}})
			}
			g.Hives[j].Devices = append(g.Hives[j].Devices, *d.PCI)
		}
		g.Devices = append(g.Devices, d)
	}

	if reason != "" {
		// A node could not be read: it may be a GPU, so no count is sure.
		g.Reason = &reason
	} else {
		g.PhysicalCount = schema.Int(len(g.Devices))
		g.PartitionCount = schema.Int(partitions)
	}
	g.ComputePartition = agreed(g.Devices, func(d *schema.GPUDevice) *string { return d.ComputePartition })
	g.MemoryPartition = agreed(g.Devices, func(d *schema.GPUDevice) *string { return d.MemoryPartition })
	return g
}

// comparePCI orders nodes by PCI domain, bus and device (nodes without a
// location_id last), then by node id.
func comparePCI(a, b *source.KFDNode) int {
	la, oka := a.Props.Get(source.KFDLocationID)
	lb, okb := b.Props.Get(source.KFDLocationID)
	if oka != okb {
		if oka {
			return -1
		}
		return 1
	}
	da, _ := a.Props.Get(source.KFDDomain)
	db, _ := b.Props.Get(source.KFDDomain)
	if c := cmp.Compare(da, db); c != 0 {
		return c
	}
	if c := cmp.Compare(la>>3, lb>>3); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// gpuDevice is one physical GPU from its partitions (in node order).
// Identity and firmware come from the first partition, the hive from all
// (setHive); counts are summed over all of them, null when one lacks the
// property. The amdgpu attributes are read only with amdgpu (the first
// gpusMaxDRMDevices GPUs), and kept within amdgpuValuesMax
// (gpus_bounds.go).
func gpuDevice(src source.FS, parts []*source.KFDNode, amdgpu bool) schema.GPUDevice {
	first := &parts[0].Props
	d := schema.GPUDevice{Partitions: make([]schema.GPUPartition, 0, len(parts))}
	if u, ok := first.Get(source.KFDUniqueID); ok && u != 0 {
		d.UniqueID = schema.Str(strconv.FormatUint(u, 10))
	}
	loc, hasLoc := first.Get(source.KFDLocationID)
	dom, hasDom := first.Get(source.KFDDomain)
	if hasLoc && hasDom {
		d.PCI = schema.Str(pciAddress(dom, loc))
	}
	if v, ok := first.Get(source.KFDGfxTargetVersion); ok && v != 0 {
		d.GfxTarget = schema.Str(gfxTarget(v))
	}
	if v, ok := first.Get(source.KFDDeviceID); ok {
		d.DeviceID = schema.Str(fmt.Sprintf("0x%04x", v))
	}
	setHive(&d, parts)
	d.FWVersion = propInt(first, source.KFDFWVersion)
	d.SDMAFWVersion = propInt(first, source.KFDSDMAFWVersion)

	setPartitions(&d, parts)
	if !amdgpu {
		d.DRMReason = schema.Str(drmCapReason)
		return d
	}
	setDRM(src, &d, parts[0])
	return d
}

// setPartitions lists d's partitions, one per kfd node, and sums their
// SIMDs, CUs and XCCs: each sum null when a partition lacks the property.
func setPartitions(d *schema.GPUDevice, parts []*source.KFDNode) {
	simd, cus, xcc := 0, 0, 0
	simdOK, cuOK, xccOK := true, true, true
	for _, n := range parts {
		p := schema.GPUPartition{Node: n.ID, RenderMinor: propInt(&n.Props, source.KFDDRMRenderMinor),
			NumXCC: propInt(&n.Props, source.KFDNumXCC), CUCount: cuCount(&n.Props)}
		if l, ok := n.Props.Get(source.KFDLocationID); ok {
			p.PCIFunction = schema.Int(int(l & 7))
		}
		if s := propInt(&n.Props, source.KFDSIMDCount); s != nil {
			simd += *s
		} else {
			simdOK = false
		}
		if p.CUCount != nil {
			cus += *p.CUCount
		} else {
			cuOK = false
		}
		if p.NumXCC != nil {
			xcc += *p.NumXCC
		} else {
			xccOK = false
		}
		d.Partitions = append(d.Partitions, p)
	}
	if simdOK {
		d.SIMDCount = schema.Int(simd)
	}
	if cuOK {
		d.CUCount = schema.Int(cus)
	}
	if xccOK {
		d.NumXCC = schema.Int(xcc)
	}
}

// setDRM reads d's amdgpu attributes through the render node kfd names
// for its first partition, or says in drm_reason why they were not read.
func setDRM(src source.FS, d *schema.GPUDevice, first *source.KFDNode) {
	minor, ok := first.Props.Get(source.KFDDRMRenderMinor)
	if !ok {
		d.DRMReason = schema.Str(fmt.Sprintf("kfd node %d has no drm_render_minor", first.ID))
		return
	}
	dir := source.DRMRenderDevice(minor)
	name, isLink, err := src.DRMDeviceName(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.DRMReason = schema.Str(dir + " does not exist")
		return
	case err != nil:
		cause := source.Cause(err)
		d.DRMReason = schema.Str(fmt.Sprintf("%s unreadable (%s: %s)", dir, pyfmt.ExcType(cause), pyfmt.ExcStr(cause)))
		return
	case isLink && d.PCI != nil && name != *d.PCI:
		d.DRMReason = schema.Str(fmt.Sprintf("%s is %s, not the PCI device %s", dir, name, *d.PCI))
		return
	}
	d.DRMDevice = schema.Str(dir)
	a, err := src.AMDGPUDevice(dir)
	setAMDGPU(d, dir, a, err)
	boundAMDGPUValues(dir, d)
}

// propInt is property p as an int, nil when absent or too large.
func propInt(k *source.KFDProps, p source.KFDProp) *int {
	v, ok := k.Get(p)
	if !ok || v > 1<<31-1 {
		return nil
	}
	return schema.Int(int(v))
}

// cuCount is the compute units of a node: simd_count / simd_per_cu; nil
// when either is absent or simd_per_cu is 0.
func cuCount(k *source.KFDProps) *int {
	s := propInt(k, source.KFDSIMDCount)
	per, ok := k.Get(source.KFDSIMDPerCU)
	if s == nil || !ok || per == 0 {
		return nil
	}
	return schema.Int(*s / int(per))
}

// agreed is the value every device has, or nil when one has none or two
// differ (or there is no device).
func agreed(ds []schema.GPUDevice, f func(*schema.GPUDevice) *string) *string {
	var v *string
	for i := range ds {
		x := f(&ds[i])
		if x == nil || (v != nil && *v != *x) {
			return nil
		}
		v = x
	}
	return v
}

// gpusWorkers is how many goroutines read the GPUs' files: a 64-partition
// node is about 260 small reads, mostly system-call time, which spreads
// over the CPUs; one under low resource limits (Options.Workers 1).
func gpusWorkers(opt Options) int {
	if opt.Workers == 1 {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 8)
}

// startGPUs runs collectGPUs on its own goroutine (it reads files only, so
// it runs beside the probes and adds no wall time to a collection that
// waits for them); a panic becomes the block's reason.
func startGPUs(root *machine.FS, workers int) <-chan schema.GPUs {
	ch := make(chan schema.GPUs, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- schema.GPUs{Hives: []schema.GPUHive{}, Devices: []schema.GPUDevice{},
					Reason: schema.Str(fmt.Sprintf("panic while reading the GPUs: %v", v))}
			}
		}()
		ch <- collectGPUs(root, workers)
	}()
	return ch
}

// awaitGPUs waits for startGPUs' answer until the collection ends (its
// deadline or a signal); done is false past it, and the block is then
// unfinishedGPUs (a file system that stalls a read, such as a hung FUSE
// mount, must not hold the document).
func awaitGPUs(ctx context.Context, ch <-chan schema.GPUs) (g schema.GPUs, done bool) {
	select {
	case g := <-ch:
		return g, true
	case <-ctx.Done():
		select { // finished meanwhile: keep the answer
		case g := <-ch:
			return g, true
		default:
		}
		return schema.GPUs{}, false
	}
}

// gpusBlock names the gpus row of the probe table (a beside row, no probe
// record), as a capture's cut (archive.Cut) names it when it ended first.
const gpusBlock = "probe_provenance.gpus"

// unfinishedGPUs is the block the collection ended before: no counts, the
// cause why ("collection interrupted", "deadline of 60s exceeded").
func unfinishedGPUs(why string) schema.GPUs {
	return schema.GPUs{Hives: []schema.GPUHive{}, Devices: []schema.GPUDevice{},
		Reason: schema.Str("not finished (" + why + ")")}
}
