package schema

// GPUs is the GPUs as the kernel exposes them: physical devices, their
// compute partitions, XGMI hives, firmware and PCIe links
// (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are).
// gpu_arch keeps the enumerator's answer (one agent per kfd node); this
// block says which agents are partitions of one GPU.
//
// Every value is a file read: the kfd topology
// (/sys/class/kfd/kfd/topology/nodes/<n>/properties, one node per CPU
// or GPU partition) and, for each physical GPU, the amdgpu attributes of
// its DRM device (/sys/class/drm/renderD<drm_render_minor>/device). A
// missing or unreadable file is null, never a guess.
type GPUs struct {
	// PhysicalCount is the number of physical GPUs: the kfd GPU nodes
	// (gfx_target_version != 0) grouped by PCI address without the
	// function bits, unique_id and gfx target (by unique_id and gfx
	// target where location_id is absent; each node alone where unique_id
	// is 0 too). Null with Reason when the topology could not be read, a
	// node's properties are not as kfd writes them (it might be a GPU), or
	// the topology changed twice while read; 0 on a host whose kfd lists
	// only CPUs.
	PhysicalCount *int `py:"physical_count"`
	// PartitionCount is the number of kfd GPU nodes (what
	// rocm_agent_enumerator counts as agents); null with PhysicalCount.
	PartitionCount *int `py:"partition_count"`
	// ComputePartition is the devices' compute_partition when every
	// device has one and they all agree (SPX, DPX, TPX, QPX, CPX); null
	// otherwise, the per-device values then stand in Devices.
	ComputePartition *string `py:"compute_partition"`
	// MemoryPartition is the devices' memory_partition when every device
	// has one and they all agree (NPS1, NPS2, NPS4, NPS8); null otherwise.
	MemoryPartition *string `py:"memory_partition"`
	// Hives are the XGMI hives: devices with the same non-zero kfd
	// hive_id (GPUDevice.HiveID), in the PCI order of their first device.
	// Devices with hive_id 0 belong to none.
	Hives []GPUHive `py:"hives"`
	// Source is the kfd topology directory read
	// (/sys/class/kfd/kfd/topology/nodes, under the probed root), or null
	// when it was not read.
	Source *string `py:"source"`
	// Reason says why PhysicalCount is null (no kfd topology, unreadable,
	// a node's properties not as kfd writes them, the topology changing
	// while read, a replay without it), or null when it is not.
	Reason *string `py:"reason"`
	// Devices are the physical GPUs in PCI order (domain, bus, device).
	Devices []GPUDevice `py:"devices"`
}

// GPUHive is one XGMI hive.
type GPUHive struct {
	// HiveID is the kfd hive_id shared by its devices, in decimal as kfd
	// writes it (a string: the 64-bit id does not fit a JSON double).
	HiveID string `py:"hive_id"`
	// Devices are the PCI addresses (GPUDevice.pci) of its members, in
	// PCI order.
	Devices []string `py:"devices"`
}

// GPUDevice is one physical GPU: one or more kfd nodes sharing PCI device,
// unique_id and gfx target (GPUs.PhysicalCount).
// Fields from kfd come from its first partition (lowest kfd node id) unless
// they say otherwise; the amdgpu fields from that partition's DRM device.
type GPUDevice struct {
	// UniqueID is the kfd unique_id, decimal as written (a string, like
	// HiveID); null when 0 or absent.
	UniqueID *string `py:"unique_id"`
	// PCI is the device's address, domain:bus:device.function
	// ("0000:0a:00.0"), from kfd domain and location_id (bus << 8 |
	// device << 3 | function) of its first partition.
	PCI *string `py:"pci"`
	// GfxTarget is the LLVM target of kfd gfx_target_version, by
	// rocm_agent_enumerator's rule: "gfx" + major (decimal) + minor and
	// stepping (one hex digit each); 90402 is gfx942, 90010 gfx90a.
	GfxTarget *string `py:"gfx_target"`
	// DeviceID is the kfd device_id as a PCI device id ("0x74a2").
	DeviceID *string `py:"device_id"`
	// HiveID is the kfd hive_id (decimal string) its partitions carry (a
	// partition with 0 is in the hive of the others); null when every one
	// has 0 (no hive) or two carry different ids (Reasons says so).
	HiveID *string `py:"hive_id"`
	// NUMANode is the DRM device's numa_node (-1: no affinity), or null.
	NUMANode *int `py:"numa_node"`
	// SIMDCount is kfd simd_count summed over the partitions.
	SIMDCount *int `py:"simd_count"`
	// CUCount is the compute units: kfd simd_count / simd_per_cu, summed
	// over the partitions.
	CUCount *int `py:"cu_count"`
	// NumXCC is kfd num_xcc summed over the partitions (the accelerator
	// complex dies of the GPU); null on kernels that do not write it.
	NumXCC *int `py:"num_xcc"`
	// FWVersion is kfd fw_version (the MEC firmware).
	FWVersion *int `py:"fw_version"`
	// SDMAFWVersion is kfd sdma_fw_version.
	SDMAFWVersion *int `py:"sdma_fw_version"`
	// ProductName is the amdgpu product_name (from the board's FRU), or
	// null.
	ProductName *string `py:"product_name"`
	// VBIOSVersion is the amdgpu vbios_version, or null.
	VBIOSVersion *string `py:"vbios_version"`
	// VRAMBytes is the amdgpu mem_info_vram_total, or null.
	VRAMBytes *int64 `py:"vram_bytes"`
	// ComputePartition is amdgpu current_compute_partition (SPX, DPX,
	// TPX, QPX, CPX), or null where the GPU has no partition modes.
	ComputePartition *string `py:"compute_partition"`
	// AvailableComputePartitions is amdgpu available_compute_partition
	// split at commas, or null.
	AvailableComputePartitions []string `py:"available_compute_partitions,nullable"`
	// MemoryPartition is amdgpu current_memory_partition (NPS1, NPS4, …),
	// or null.
	MemoryPartition *string `py:"memory_partition"`
	// AvailableMemoryPartitions is amdgpu available_memory_partition
	// split at commas, or null.
	AvailableMemoryPartitions []string `py:"available_memory_partitions,nullable"`
	// PCIe is the link of the PCI device.
	PCIe GPUPCIe `py:"pcie"`
	// Firmware is every amdgpu fw_version/<name>_fw_version file, by file
	// name without the suffix ("sos", "mec", …), value as written
	// ("0x00000011"), in file-name order; null when the directory is absent.
	Firmware []GPUFirmware `py:"firmware,nullable"`
	// DRMDevice is the DRM device directory the amdgpu fields were read
	// from (/sys/class/drm/renderD<minor>/device), or null.
	DRMDevice *string `py:"drm_device"`
	// DRMReason says why DRMDevice is null or unreadable, or null.
	DRMReason *string `py:"drm_reason"`
	// Reasons says, one line each, why this device stands apart from kfd
	// nodes that share its unique_id or its PCI device (a unique_id on
	// several PCI devices, several unique_ids or gfx targets on one), why
	// its partitions give it no hive (they disagree on hive_id), and why a
	// value whose file was read is null (it held what the kernel never
	// writes there: "current_compute_partition is 'XYZ', not a mode
	// amdgpu writes (…)"). Absent when there is nothing to say, as on
	// every real node read so far and in documents of older aorta-probe
	// versions.
	Reasons *[]string `py:"reasons,omitnil"`
	// Partitions are the kfd nodes of this GPU, by kfd node id.
	Partitions []GPUPartition `py:"partitions"`
}

// GPUPCIe is a GPU's PCIe link, from the PCI device's sysfs attributes
// (current_link_speed, current_link_width, max_link_speed,
// max_link_width in the DRM device directory); each null when absent.
type GPUPCIe struct {
	CurrentLinkSpeed *string `py:"current_link_speed"` // "16.0 GT/s PCIe"
	CurrentLinkWidth *int    `py:"current_link_width"` // Lanes.
	MaxLinkSpeed     *string `py:"max_link_speed"`     // As current_link_speed.
	MaxLinkWidth     *int    `py:"max_link_width"`     // Lanes.
}

// GPUFirmware is one amdgpu fw_version file.
type GPUFirmware struct {
	Name    string `py:"name"`    // The file name without "_fw_version".
	Version string `py:"version"` // Its content, stripped.
}

// GPUPartition is one kfd GPU node: a whole GPU, or one compute partition
// of it.
type GPUPartition struct {
	// Node is the kfd node id (the nodes/<n> directory).
	Node int `py:"node"`
	// RenderMinor is kfd drm_render_minor (/dev/dri/renderD<minor>).
	RenderMinor *int `py:"render_minor"`
	// PCIFunction is the function bits of kfd location_id; on a
	// partitioned GPU kfd writes the partition's index there.
	PCIFunction *int `py:"pci_function"`
	NumXCC      *int `py:"num_xcc"`  // kfd num_xcc.
	CUCount     *int `py:"cu_count"` // kfd simd_count / simd_per_cu.
}
