package fakeroot

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// HostileGPUs is one of the GPU trees of issue 32 item 4 that cost what
// the tree asks unless every listing and read is bounded: each is valid
// for the documented bounds of probe_provenance.gpus (docs/hardware.md,
// "Bounds") but large. The sizes are the test's; the figures
// came from the larger ones in docs/design-notes.md, "Bounds on a
// hostile tree".
type HostileGPUs struct {
	// GPUs is the number of kfd GPU nodes (node ids 0…GPUs-1).
	GPUs int
	// SharedRender: every GPU has drm_render_minor 128 and no
	// location_id or unique_id, so each is a physical GPU of its own
	// whose amdgpu device is the same renderD128/device. Otherwise GPU i
	// has render minor 128+i and a device directory of its own.
	SharedRender bool
	// Firmware is the number of page-sized fw_version files of each
	// device; FIFOs and Dirs the FIFOs and directories beside them.
	Firmware, FIFOs, Dirs int
	// NonNodes is the number of entries in kfd nodes/ whose names are no
	// node id.
	NonNodes int
	// Page fills every amdgpu attribute with a page (4096 bytes) of a
	// control byte, which JSON writes as six (\u0001): the largest value
	// each file may give.
	Page bool
}

// Build writes the tree under root (created).
func (h HostileGPUs) Build(root string) error {
	nodes := filepath.Join(root, "sys/class/kfd/kfd/topology/nodes")
	if err := os.MkdirAll(nodes, 0o755); err != nil {
		return err
	}
	for i := range h.NonNodes {
		if err := os.WriteFile(filepath.Join(nodes, "x"+strconv.Itoa(i)), nil, 0o644); err != nil {
			return err
		}
	}
	value := "1"
	if h.Page {
		value = strings.Repeat("\x01", 4096)
	}
	for i := range h.GPUs {
		minor := 128
		props := "simd_count 4\nsimd_per_cu 4\ngfx_target_version 90402\n"
		if !h.SharedRender {
			minor += i
			props += "domain 0\nlocation_id " + strconv.Itoa(i<<3) + "\nunique_id " + strconv.Itoa(i+1) + "\n"
		}
		props += "drm_render_minor " + strconv.Itoa(minor) + "\n"
		dir := filepath.Join(nodes, strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "properties"), []byte(props), 0o644); err != nil {
			return err
		}
		if h.SharedRender && i > 0 {
			continue
		}
		if err := h.device(filepath.Join(root, "sys/class/drm/renderD"+strconv.Itoa(minor)+"/device"), value); err != nil {
			return err
		}
	}
	return nil
}

// amdgpuAttributes are the files internal/source/sys_class_drm_amdgpu.go reads.
var amdgpuAttributes = []string{"numa_node", "product_name", "vbios_version", "mem_info_vram_total",
	"current_compute_partition", "available_compute_partition", "current_memory_partition",
	"available_memory_partition", "current_link_speed", "current_link_width", "max_link_speed", "max_link_width"}

// device writes one amdgpu device directory.
func (h HostileGPUs) device(dev, value string) error {
	fw := filepath.Join(dev, "fw_version")
	if err := os.MkdirAll(fw, 0o755); err != nil {
		return err
	}
	for _, a := range amdgpuAttributes {
		if err := os.WriteFile(filepath.Join(dev, a), []byte(value), 0o644); err != nil {
			return err
		}
	}
	for j := range h.Firmware {
		name := strings.Repeat("f", 200) + strconv.Itoa(j) + "_fw_version"
		if err := os.WriteFile(filepath.Join(fw, name), []byte(value), 0o644); err != nil {
			return err
		}
	}
	for j := range h.FIFOs {
		if err := syscall.Mkfifo(filepath.Join(fw, "p"+strconv.Itoa(j)+"_fw_version"), 0o644); err != nil {
			return err
		}
	}
	for j := range h.Dirs {
		if err := os.Mkdir(filepath.Join(fw, "d"+strconv.Itoa(j)+"_fw_version"), 0o755); err != nil {
			return err
		}
	}
	return nil
}
