package probe

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// The gpus block's words for what internal/source read of the kfd
// topology (sys_class_kfd.go) and of amdgpu's sysfs
// (sys_class_drm_amdgpu.go): the reasons, and the document's spelling of
// the values.

// kfdReason is the block's reason for an error of source.KFDNodes.
func kfdReason(err error) string {
	var (
		e   *source.Error
		bad *source.KFDPropertiesError
		gen *source.KFDGenerations
	)
	if !errors.As(err, &e) {
		return err.Error()
	}
	cause := source.Cause(err)
	switch {
	case errors.As(err, &bad):
		return kfdUnusableReason(e.Path, bad)
	case errors.As(err, &gen):
		return fmt.Sprintf("the kfd topology changed while it was read, twice (%s went from %d to %d, then to %d): no count is sure",
			source.KFDGenerationID, gen.Before, gen.After, gen.Again)
	case errors.Is(err, source.ErrCap):
		return fmt.Sprintf("%s holds more than %d entries: not read (the cap on kfd nodes)", source.KFDNodesDir, source.KFDMaxNodes)
	case e.Path == source.KFDNodesDir && errors.Is(err, fs.ErrNotExist):
		return "no kfd topology (" + source.KFDNodesDir + " does not exist: amdgpu not loaded, no AMD GPU, or /sys not mounted in this container)"
	}
	return fmt.Sprintf("%s unreadable (%s: %s)", e.Path, pyfmt.ExcType(cause), pyfmt.ExcStr(cause))
}

// kfdUnusableReason names the properties file p and the line that is not
// as kfd writes it (its first 60 characters), as the block's reason.
func kfdUnusableReason(p string, bad *source.KFDPropertiesError) string {
	var what string
	switch {
	case bad.Bad > 0:
		first := bad.First
		text := pyfmt.FirstRunes(first.Text, 60)
		if len(text) < len(first.Text) {
			text += "…"
		}
		what = fmt.Sprintf("line %d (%s) %s", first.Line, pyfmt.Repr(text), first.Why)
		if bad.Bad > 1 {
			what += fmt.Sprintf(" (and %d more lines not as kfd writes them)", bad.Bad-1)
		}
	case bad.Empty:
		what = "is empty"
	default:
		what = "has neither gfx_target_version nor simd_count"
	}
	return fmt.Sprintf("%s %s: node %d might be a GPU, so no count is sure", p, what, bad.Node)
}

// amdgpuWant is what the kernel writes in each attribute
// source.AMDGPUDevice checks, as a refusal words it.
var amdgpuWant = func() map[string]string {
	modes := func(l []string) string { return "(" + strings.Join(l, ", ") + ")" }
	speed := "a speed the PCI core writes (2.5 to 64.0 GT/s PCIe or Unknown; 2.5 to 32 GT/s or Unknown speed before Linux 5.7)"
	width := "a lane count the PCI core writes (0 to 63)"
	return map[string]string{
		"numa_node":                   "a NUMA node the PCI core writes (-1 or a node number)",
		"mem_info_vram_total":         "a byte count amdgpu writes (an unsigned decimal)",
		"current_compute_partition":   "a mode amdgpu writes " + modes(source.ComputeModes),
		"available_compute_partition": "a list of modes amdgpu writes " + modes(source.ComputeModes),
		"current_memory_partition":    "a mode amdgpu writes " + modes(source.MemoryModes),
		"available_memory_partition":  "a list of modes amdgpu writes " + modes(source.MemoryModes),
		"current_link_speed":          speed,
		"max_link_speed":              speed,
		"current_link_width":          width,
		"max_link_width":              width,
	}
}()

// setAMDGPU fills d's amdgpu fields from what source.AMDGPUDevice read of
// dir (a, err): each refused attribute is a reason on d quoting what it
// held (its first 60 characters), and the cap on firmware files is
// drm_reason.
func setAMDGPU(d *schema.GPUDevice, dir string, a source.AMDGPUDevice, err error) {
	d.NUMANode = a.NUMANode
	d.ProductName = a.ProductName
	d.VBIOSVersion = a.VBIOSVersion
	d.VRAMBytes = a.VRAMBytes
	d.ComputePartition = a.ComputePartition
	d.AvailableComputePartitions = a.AvailableComputePartitions
	d.MemoryPartition = a.MemoryPartition
	d.AvailableMemoryPartitions = a.AvailableMemoryPartitions
	d.PCIe = schema.GPUPCIe{
		CurrentLinkSpeed: a.CurrentLinkSpeed,
		CurrentLinkWidth: a.CurrentLinkWidth,
		MaxLinkSpeed:     a.MaxLinkSpeed,
		MaxLinkWidth:     a.MaxLinkWidth,
	}
	for _, r := range a.Refused {
		text := pyfmt.FirstRunes(r.Value, 60)
		if len(text) < len(r.Value) {
			text += "…"
		}
		addReasons(d, fmt.Sprintf("%s/%s is %s, not %s", dir, r.Attr, pyfmt.Repr(text), amdgpuWant[r.Attr]))
	}
	if a.Firmware != nil {
		d.Firmware = make([]schema.GPUFirmware, len(a.Firmware))
		for i, f := range a.Firmware {
			d.Firmware[i] = schema.GPUFirmware{Name: f.Name, Version: f.Version}
		}
	}
	if errors.Is(err, source.ErrCap) {
		d.DRMReason = schema.Str(fmt.Sprintf("%s/fw_version holds more than %d entries: not read (the cap on firmware files)", dir, source.AMDGPUFirmwareMax))
	}
}

// gfxTarget is rocm_agent_enumerator's name of a gfx_target_version
// (readFromKFD): "gfx" + major in decimal + minor and stepping in hex,
// where the version is major*10000 + minor*100 + stepping.
func gfxTarget(v uint64) string {
	return "gfx" + strconv.FormatUint(v/10000%100, 10) + strconv.FormatUint(v/100%100, 16) + strconv.FormatUint(v%100, 16)
}

// pciAddress is the domain:bus:device.function of kfd domain and
// location_id (bus << 8 | device << 3 | function), as lspci -D writes it.
func pciAddress(domain, location uint64) string {
	return fmt.Sprintf("%04x:%02x:%02x.%x", domain, location>>8&0xff, location>>3&0x1f, location&7)
}
