package probe

import (
	"fmt"

	"aorta-probe/schema"
)

// Bounds of probe_provenance.gpus beyond the per-file ones
// (docs/hardware.md, "Bounds"): what a hostile or broken tree can make
// the block read and write is bounded by these caps, never by the tree.
// With source.KFDMaxNodes nodes, each a GPU of its own, the block stays
// under 4 MiB of JSON (TestE2EHostileGPUBounds measures it).
const (
	// gpusMaxDRMDevices is how many GPUs (in PCI order) have their
	// amdgpu attributes read: a real node has 8, 16 at most; the rest
	// get drmCapReason.
	gpusMaxDRMDevices = 64
	// amdgpuValuesMax bounds the amdgpu values one GPU keeps, in bytes
	// of text, each list element counted amdgpuItemCost more (its JSON
	// lines): a real GPU keeps about 1.5 KiB (25 firmware files and a
	// dozen short attributes), a page-sized attribute alone fills it.
	amdgpuValuesMax = 4 << 10
	amdgpuItemCost  = 16
)

// drmCapReason is the drm_reason of a GPU past gpusMaxDRMDevices.
var drmCapReason = fmt.Sprintf("not read: the amdgpu attributes of the first %d GPUs only are read (the cap on DRM devices)", gpusMaxDRMDevices)

// boundAMDGPUValues keeps d's amdgpu values (read from dir) within
// amdgpuValuesMax: in the order of the document, the first value that
// would pass it and every one after it become null, and drm_reason says
// where it stopped. The reads themselves are bounded already (a page per
// attribute, source.AMDGPUFirmwareMax files).
func boundAMDGPUValues(dir string, d *schema.GPUDevice) {
	left := amdgpuValuesMax
	cut := ""
	keep := func(name string, n int) bool {
		if cut == "" && n <= left {
			left -= n
			return true
		}
		if cut == "" {
			cut = name
		}
		return false
	}
	str := func(name string, p **string) {
		if *p != nil && !keep(name, len(**p)) {
			*p = nil
		}
	}
	list := func(name string, l *[]string) {
		n := 0
		for _, s := range *l {
			n += len(s) + amdgpuItemCost
		}
		if *l != nil && !keep(name, n) {
			*l = nil
		}
	}
	str("product_name", &d.ProductName)
	str("vbios_version", &d.VBIOSVersion)
	str("current_compute_partition", &d.ComputePartition)
	list("available_compute_partition", &d.AvailableComputePartitions)
	str("current_memory_partition", &d.MemoryPartition)
	list("available_memory_partition", &d.AvailableMemoryPartitions)
	str("current_link_speed", &d.PCIe.CurrentLinkSpeed)
	str("max_link_speed", &d.PCIe.MaxLinkSpeed)
	n := 0
	for _, f := range d.Firmware {
		n += len(f.Name) + len(f.Version) + 2*amdgpuItemCost
	}
	if d.Firmware != nil && !keep("fw_version", n) {
		d.Firmware = nil
	}
	if cut != "" && d.DRMReason == nil {
		d.DRMReason = schema.Str(fmt.Sprintf("%s: amdgpu values over %d bytes in all: %s and the rest not kept (the cap on amdgpu values)", dir, amdgpuValuesMax, cut))
	}
}
