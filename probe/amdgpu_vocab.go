package probe

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// The kernel's vocabularies for the amdgpu attributes the gpus block
// reads (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are).
// A file that holds anything else was not written by the kernel (a tree
// built by hand, a corrupted copy, a FUSE mount): its value is null and
// the device's reasons say what it held.
var (
	// computeModes: amdgpu_gfx_compute_mode_desc (amdgpu_gfx.h), what
	// current_compute_partition and available_compute_partition write.
	computeModes = []string{"SPX", "DPX", "TPX", "QPX", "CPX", "UNKNOWN"}
	// memoryModes: nps_desc (amdgpu_gmc.c), what current_memory_partition
	// and available_memory_partition write; UNKNOWN when the mode cannot
	// be queried.
	memoryModes = []string{"NPS1", "NPS2", "NPS3", "NPS4", "NPS6", "NPS8", "UNKNOWN"}
	// linkSpeeds: the PCI core's current_link_speed and max_link_speed,
	// pci_speed_string (drivers/pci/probe.c) since Linux 5.7, then the
	// strings of Linux 5.6 and earlier (pci-sysfs.c).
	linkSpeeds = []string{
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

// amdgpuAttrs reads the attributes of one DRM device directory for d,
// checked against the kernel's vocabularies.
type amdgpuAttrs struct {
	root *machine.FS
	dir  string
	d    *schema.GPUDevice
}

// refuse records on d that attribute attr held s, which the kernel never
// writes there (what it writes: want).
func (a amdgpuAttrs) refuse(attr, s, want string) {
	text := pyfmt.FirstRunes(s, 60)
	if len(text) < len(s) {
		text += "…"
	}
	addReasons(a.d, fmt.Sprintf("%s/%s is %s, not %s", a.dir, attr, pyfmt.Repr(text), want))
}

// word is attribute attr when it is one of words, else nil (refused:
// the kernel writes what).
func (a amdgpuAttrs) word(attr string, words []string, what string) *string {
	s := sysfsText(a.root, a.dir+"/"+attr)
	if s == nil || slices.Contains(words, *s) {
		return s
	}
	a.refuse(attr, *s, what)
	return nil
}

// mode is a current_*_partition attribute: one of modes.
func (a amdgpuAttrs) mode(attr string, modes []string) *string {
	return a.word(attr, modes, "a mode amdgpu writes ("+strings.Join(modes, ", ")+")")
}

// speed is a link speed attribute: one of linkSpeeds.
func (a amdgpuAttrs) speed(attr string) *string {
	return a.word(attr, linkSpeeds, "a speed the PCI core writes (2.5 to 64.0 GT/s PCIe or Unknown; 2.5 to 32 GT/s or Unknown speed before Linux 5.7)")
}

// modes is an available_*_partition attribute split into its modes
// (amdgpu's ", "-separated list; blanks around the commas and empty items
// are ignored); nil when absent or "Not supported", nil and refused when
// a mode is not one of words.
func (a amdgpuAttrs) modes(attr string, words []string) []string {
	s := sysfsText(a.root, a.dir+"/"+attr)
	if s == nil || *s == notSupported {
		return nil
	}
	out := splitModes(s)
	for _, m := range out {
		if !slices.Contains(words, m) {
			a.refuse(attr, *s, "a list of modes amdgpu writes ("+strings.Join(words, ", ")+")")
			return nil
		}
	}
	return out
}

// integer is attribute attr as the kernel writes an integer
// (kernelInt) within [lo, hi]; nil when absent, nil and refused
// otherwise. unknown, when not nil, is a value the kernel writes for "not
// known": null, not refused.
func (a amdgpuAttrs) integer(attr string, lo, hi int64, unknown *int64, what string) *int64 {
	s := sysfsText(a.root, a.dir+"/"+attr)
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
	a.refuse(attr, *s, what)
	return nil
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

// width is a link width attribute: the lanes the PCI core writes ("%u"
// of a 6-bit field, 0 to 63); PCIE_LNK_WIDTH_UNKNOWN (255, a device
// without link capability) is null.
func (a amdgpuAttrs) width(attr string) *int {
	unknown := int64(pciWidthUnknown)
	return smallInt(a.integer(attr, 0, 63, &unknown, "a lane count the PCI core writes (0 to 63)"))
}

// numaNode is the PCI core's numa_node: "%d", -1 for no affinity.
func (a amdgpuAttrs) numaNode() *int {
	return smallInt(a.integer("numa_node", -1, math.MaxInt32, nil, "a NUMA node the PCI core writes (-1 or a node number)"))
}

// vramBytes is amdgpu's mem_info_vram_total: "%llu", bytes.
func (a amdgpuAttrs) vramBytes() *int64 {
	return a.integer("mem_info_vram_total", 0, math.MaxInt64, nil, "a byte count amdgpu writes (an unsigned decimal)")
}
