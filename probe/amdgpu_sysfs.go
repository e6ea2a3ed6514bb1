package probe

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// sysfsAttrMax bounds one attribute read: a sysfs attribute is at most one
// page (the kernel's show() fills a PAGE_SIZE buffer); anything larger is
// not one and reads as missing.
const sysfsAttrMax = 4096

// amdgpuFirmwareMax bounds the fw_version directory: amdgpu writes about
// 25 files (one per firmware it knows); one with more entries, of any
// kind, is listed no further and its files are not read
// (docs/hardware.md, "Bounds").
const amdgpuFirmwareMax = 128

// drmRenderDevice is the device directory of a DRM render node: a PCI
// device for a GPU (or the first partition of one), a platform device
// amdgpu_xcp.N for the other partitions.
func drmRenderDevice(minor uint64) string {
	return "/sys/class/drm/renderD" + strconv.FormatUint(minor, 10) + "/device"
}

// sysfsText is one sysfs attribute: at most a page, strict UTF-8,
// Python-stripped; nil when missing, unreadable, larger, not UTF-8 or
// empty.
func sysfsText(root *machine.FS, p string) *string {
	b, err := root.ReadFile(p, sysfsAttrMax)
	if err != nil || !utf8.Valid(b) {
		return nil
	}
	s := pyfmt.Strip(string(b))
	if s == "" {
		return nil
	}
	return &s
}

func smallInt(n *int64) *int {
	if n == nil || *n != int64(int(*n)) {
		return nil
	}
	v := int(*n)
	return &v
}

// splitModes splits an available_*_partition attribute ("SPX, DPX, CPX",
// amdgpu's ", "-separated list) into its modes; nil for nil.
func splitModes(s *string) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, m := range strings.Split(*s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// readAMDGPUDevice fills d's amdgpu fields from the DRM device directory
// dir (drmRenderDevice of the GPU's first partition). Each value is one
// attribute of amdgpu's sysfs (Linux Documentation/gpu/amdgpu/
// driver-misc.rst and the PCI core's link attributes), null when the file
// is missing or unreadable, and null with a reason on d when it holds
// what the kernel never writes there (amdgpu_vocab.go):
//
//	numa_node                    PCI core: the device's NUMA node, -1 for none
//	product_name                 amdgpu, from the board FRU
//	vbios_version                amdgpu
//	mem_info_vram_total          amdgpu, bytes
//	current_compute_partition    amdgpu (SPX, DPX, TPX, QPX, CPX, UNKNOWN), partitionable GPUs only
//	available_compute_partition  amdgpu, ", "-separated
//	current_memory_partition     amdgpu (NPS1, NPS2, NPS3, NPS4, NPS6, NPS8, UNKNOWN)
//	available_memory_partition   amdgpu, ", "-separated
//	current_link_speed/_width    PCI core ("32.0 GT/s PCIe", lanes)
//	max_link_speed/_width        PCI core
//	fw_version/<name>_fw_version amdgpu, "0x%08x" each
func readAMDGPUDevice(root *machine.FS, dir string, d *schema.GPUDevice) {
	a := amdgpuAttrs{root: root, dir: dir, d: d}
	d.NUMANode = a.numaNode()
	d.ProductName = sysfsText(root, dir+"/product_name")
	d.VBIOSVersion = sysfsText(root, dir+"/vbios_version")
	d.VRAMBytes = a.vramBytes()
	d.ComputePartition = a.mode("current_compute_partition", computeModes)
	d.AvailableComputePartitions = a.modes("available_compute_partition", computeModes)
	d.MemoryPartition = a.mode("current_memory_partition", memoryModes)
	d.AvailableMemoryPartitions = a.modes("available_memory_partition", memoryModes)
	d.PCIe = schema.GPUPCIe{
		CurrentLinkSpeed: a.speed("current_link_speed"),
		CurrentLinkWidth: a.width("current_link_width"),
		MaxLinkSpeed:     a.speed("max_link_speed"),
		MaxLinkWidth:     a.width("max_link_width"),
	}
	var reason string
	d.Firmware, reason = readAMDGPUFirmware(root, dir+"/fw_version")
	if reason != "" {
		d.DRMReason = &reason
	}
}

// readAMDGPUFirmware lists amdgpu's fw_version directory: one entry per
// readable file, by name without "_fw_version", in name order; nil when
// the directory is missing or unreadable, and nil with a reason when it
// holds more than amdgpuFirmwareMax entries (FIFOs, directories and
// everything else counted: none is then read).
func readAMDGPUFirmware(root *machine.FS, dir string) ([]schema.GPUFirmware, string) {
	es, more, err := root.ReadDirMax(dir, amdgpuFirmwareMax)
	if err != nil {
		return nil, ""
	}
	if more {
		return nil, fmt.Sprintf("%s holds more than %d entries: not read (the cap on firmware files)", dir, amdgpuFirmwareMax)
	}
	out := []schema.GPUFirmware{}
	for _, e := range es {
		if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		v := sysfsText(root, dir+"/"+e.Name())
		if v == nil {
			continue
		}
		out = append(out, schema.GPUFirmware{Name: strings.TrimSuffix(e.Name(), "_fw_version"), Version: *v})
	}
	return out, ""
}

// drmDeviceName is the name of the device the DRM device link dir points
// to (sysfs links renderD<minor>/device to the device's own directory:
// "../../../0000:0a:00.0" for a PCI device, "../../../amdgpu_xcp.0" for a
// partition's platform device). ok is false when dir is no link (a tree
// built by hand): the name is then unknown, not wrong. err is the
// readlink error otherwise.
func drmDeviceName(root *machine.FS, dir string) (name string, ok bool, err error) {
	t, err := root.Readlink(dir)
	if errors.Is(err, syscall.EINVAL) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return path.Base(t), true, nil
}
