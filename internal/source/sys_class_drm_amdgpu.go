package source

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// AMDGPUFirmwareMax bounds the fw_version directory: amdgpu writes about
// 25 files (one per firmware it knows); one with more entries, of any
// kind, is listed no further and its files are not read (ErrCap;
// docs/hardware.md, "Bounds").
const AMDGPUFirmwareMax = 128

// The kernel's vocabularies for the amdgpu attributes AMDGPUDevice reads
// (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are).
// A file that holds anything else was not written by the kernel (a tree
// built by hand, a corrupted copy, a FUSE mount): its value is null and
// the device's Refused says what it held.
var (
	// ComputeModes: amdgpu_gfx_compute_mode_desc (amdgpu_gfx.h), what
	// current_compute_partition and available_compute_partition write.
	ComputeModes = []string{"SPX", "DPX", "TPX", "QPX", "CPX", "UNKNOWN"}
	// MemoryModes: nps_desc (amdgpu_gmc.c), what current_memory_partition
	// and available_memory_partition write; UNKNOWN when the mode cannot
	// be queried.
	MemoryModes = []string{"NPS1", "NPS2", "NPS3", "NPS4", "NPS6", "NPS8", "UNKNOWN"}
	// LinkSpeeds: the PCI core's current_link_speed and max_link_speed,
	// pci_speed_string (drivers/pci/probe.c) since Linux 5.7, then the
	// strings of Linux 5.6 and earlier (pci-sysfs.c).
	LinkSpeeds = []string{
		"2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe", "Unknown",
		"2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s", "Unknown speed",
	}
)

// notSupported is what older amdgpu writes in available_compute_partition
// on a GPU without partition modes (and amdgpu_xcp.c in
// supported_nps_configs): no modes, read as null.
const notSupported = "Not supported"

// pciWidthUnknown is PCIE_LNK_WIDTH_UNKNOWN, what max_link_width writes
// when the device has no link capability: no width, read as null.
const pciWidthUnknown = 255

// DRMRenderDevice is the device directory of a DRM render node: a PCI
// device for a GPU (or the first partition of one), a platform device
// amdgpu_xcp.N for the other partitions.
func DRMRenderDevice(minor uint64) string {
	return "/sys/class/drm/renderD" + strconv.FormatUint(minor, 10) + "/device"
}

// DRMDeviceName is the name of the device the DRM device link dir points
// to (sysfs links renderD<minor>/device to the device's own directory:
// "../../../0000:0a:00.0" for a PCI device, "../../../amdgpu_xcp.0" for a
// partition's platform device). isLink is false when dir is no link (a
// tree built by hand): the name is then unknown, not wrong. err is the
// readlink error otherwise (ErrRead).
func (fs FS) DRMDeviceName(dir string) (name string, isLink bool, err error) {
	t, err := fs.m.Readlink(dir)
	if errors.Is(err, syscall.EINVAL) {
		return "", false, nil
	}
	if err != nil {
		return "", false, readErr(dir, err)
	}
	return path.Base(t), true, nil
}

// AMDGPUDevice is what amdgpu's sysfs and the PCI core say of one DRM
// device directory. Each value is one attribute (Linux
// Documentation/gpu/amdgpu/driver-misc.rst and the PCI core's link
// attributes), nil when the file is missing or unreadable (Attr), and
// nil with an entry in Refused when it holds what the kernel never writes
// there:
//
//	numa_node                    PCI core: the device's NUMA node, -1 for none
//	product_name                 amdgpu, from the board FRU
//	vbios_version                amdgpu
//	mem_info_vram_total          amdgpu, bytes
//	current_compute_partition    amdgpu (ComputeModes), partitionable GPUs only
//	available_compute_partition  amdgpu, ", "-separated
//	current_memory_partition     amdgpu (MemoryModes)
//	available_memory_partition   amdgpu, ", "-separated
//	current_link_speed/_width    PCI core ("32.0 GT/s PCIe", lanes)
//	max_link_speed/_width        PCI core
//	fw_version/<name>_fw_version amdgpu, "0x%08x" each
type AMDGPUDevice struct {
	NUMANode                   *int
	ProductName                *string
	VBIOSVersion               *string
	VRAMBytes                  *int64
	ComputePartition           *string
	AvailableComputePartitions []string
	MemoryPartition            *string
	AvailableMemoryPartitions  []string
	CurrentLinkSpeed           *string
	CurrentLinkWidth           *int
	MaxLinkSpeed               *string
	MaxLinkWidth               *int
	// Firmware is the fw_version directory, in name order; nil when it
	// is missing, unreadable or over AMDGPUFirmwareMax.
	Firmware []AMDGPUFirmware
	// Refused are the attributes that held what the kernel never writes
	// there, in the order above.
	Refused []AMDGPURefusal
}

// AMDGPUFirmware is one readable file of fw_version: its name without
// "_fw_version", and what it holds.
type AMDGPUFirmware struct{ Name, Version string }

// AMDGPURefusal is an attribute (its name under the device directory)
// and what it held, stripped.
type AMDGPURefusal struct{ Attr, Value string }

// AMDGPUDevice reads the DRM device directory dir (DRMRenderDevice of a
// GPU's first partition). The error is ErrCap when fw_version holds more
// than AMDGPUFirmwareMax entries; the other values are read all the same.
func (fs FS) AMDGPUDevice(dir string) (AMDGPUDevice, error) {
	a := amdgpuAttrs{fs: fs, dir: dir}
	d := AMDGPUDevice{
		NUMANode:     smallInt(a.integer("numa_node", -1, math.MaxInt32, nil)),
		ProductName:  a.text("product_name"),
		VBIOSVersion: a.text("vbios_version"),
		VRAMBytes:    a.integer("mem_info_vram_total", 0, math.MaxInt64, nil),
	}
	d.ComputePartition = a.word("current_compute_partition", ComputeModes)
	d.AvailableComputePartitions = a.modes("available_compute_partition", ComputeModes)
	d.MemoryPartition = a.word("current_memory_partition", MemoryModes)
	d.AvailableMemoryPartitions = a.modes("available_memory_partition", MemoryModes)
	d.CurrentLinkSpeed = a.word("current_link_speed", LinkSpeeds)
	d.CurrentLinkWidth = a.width("current_link_width")
	d.MaxLinkSpeed = a.word("max_link_speed", LinkSpeeds)
	d.MaxLinkWidth = a.width("max_link_width")
	d.Refused = a.refused
	var err error
	d.Firmware, err = fs.amdgpuFirmware(dir + "/fw_version")
	return d, err
}

// amdgpuFirmware lists amdgpu's fw_version directory: one entry per
// readable file, by name without "_fw_version", in name order; nil when
// the directory is missing or unreadable, and nil with ErrCap when it
// holds more than AMDGPUFirmwareMax entries (FIFOs, directories and
// everything else counted: none is then read).
func (fs FS) amdgpuFirmware(dir string) ([]AMDGPUFirmware, error) {
	es, more, err := fs.m.ReadDirMax(dir, AMDGPUFirmwareMax)
	if err != nil {
		return nil, nil
	}
	if more {
		return nil, &Error{Kind: ErrCap, Path: dir, Err: fmt.Errorf("more than %d entries", AMDGPUFirmwareMax)}
	}
	out := []AMDGPUFirmware{}
	for _, e := range es {
		if !e.Type().IsRegular() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		v, err := fs.Attr(dir + "/" + e.Name())
		if err != nil {
			continue
		}
		out = append(out, AMDGPUFirmware{Name: strings.TrimSuffix(e.Name(), "_fw_version"), Version: v})
	}
	return out, nil
}

// amdgpuAttrs reads the attributes of one DRM device directory, checked
// against the kernel's vocabularies; refused collects what was not.
type amdgpuAttrs struct {
	fs      FS
	dir     string
	refused []AMDGPURefusal
}

// text is attribute attr; nil when Attr fails (missing, unreadable,
// over a page, not UTF-8, empty).
func (a *amdgpuAttrs) text(attr string) *string {
	s, err := a.fs.Attr(a.dir + "/" + attr)
	if err != nil {
		return nil
	}
	return &s
}

// word is attribute attr when it is one of words, else nil (refused).
func (a *amdgpuAttrs) word(attr string, words []string) *string {
	s := a.text(attr)
	if s == nil || slices.Contains(words, *s) {
		return s
	}
	a.refused = append(a.refused, AMDGPURefusal{attr, *s})
	return nil
}

// modes is an available_*_partition attribute split into its modes
// (amdgpu's ", "-separated list; blanks around the commas and empty items
// are ignored); nil when absent or "Not supported", nil and refused when
// a mode is not one of words.
func (a *amdgpuAttrs) modes(attr string, words []string) []string {
	s := a.text(attr)
	if s == nil || *s == notSupported {
		return nil
	}
	var out []string
	for _, m := range strings.Split(*s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	for _, m := range out {
		if !slices.Contains(words, m) {
			a.refused = append(a.refused, AMDGPURefusal{attr, *s})
			return nil
		}
	}
	return out
}

// integer is attribute attr as the kernel writes an integer
// (kernelInt) within [lo, hi]; nil when absent, nil and refused
// otherwise. unknown, when not nil, is a value the kernel writes for "not
// known": nil, not refused.
func (a *amdgpuAttrs) integer(attr string, lo, hi int64, unknown *int64) *int64 {
	s := a.text(attr)
	if s == nil {
		return nil
	}
	n, ok := kernelInt(*s, lo, hi)
	switch {
	case unknown != nil && *s == strconv.FormatInt(*unknown, 10):
		return nil
	case ok:
		return &n
	}
	a.refused = append(a.refused, AMDGPURefusal{attr, *s})
	return nil
}

// width is a link width attribute: the lanes the PCI core writes ("%u"
// of a 6-bit field, 0 to 63); PCIE_LNK_WIDTH_UNKNOWN (255, a device
// without link capability) is nil.
func (a *amdgpuAttrs) width(attr string) *int {
	unknown := int64(pciWidthUnknown)
	return smallInt(a.integer(attr, 0, 63, &unknown))
}

// kernelInt is s as the kernel writes an integer with "%d" (lo < 0: an
// optional '-', then decimal digits) or "%u" (lo >= 0: decimal digits
// only), when it lies within [lo, hi]: no '+', no blank, no other base.
func kernelInt(s string, lo, hi int64) (int64, bool) {
	digits := s
	if lo < 0 {
		digits = strings.TrimPrefix(s, "-")
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && lo <= n && n <= hi
}

func smallInt(n *int64) *int {
	if n == nil || *n != int64(int(*n)) {
		return nil
	}
	v := int(*n)
	return &v
}
