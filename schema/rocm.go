package schema

// ROCm is the ROCm userspace the filesystem holds (core.md §6).
type ROCm struct {
	// Source: <core>/.info/version, else the TheRock manifest, pip metadata
	// or torch's +rocm segment (see VersionSource).
	Version *string `json:"version"`
	// Source: <core>/.info/version-dev, else the manifest's rocm_package_version.
	VersionDev *string `json:"version_dev"`
	// Source: /sys/module/amdgpu/version. Scope: host kernel.
	KmdVersion *string `json:"kmd_version"`
	// Which step of the version chain answered, or null.
	VersionSource *string `json:"version_source"`
	// The resolved core root (core.md §2). Scope: process.
	Root string `json:"root"`
	// The resolved libraries root.
	LibRoot string `json:"lib_root"`
	// ROCM_PATH, ROCM_HOME, opt_rocm, import:_rocm_sdk_core or none.
	RootSource string `json:"root_source"`
	// classic or wheel.
	Layout string `json:"layout"`
}

// TheRock is the TheRock build manifest, when the install has one (core.md §7).
type TheRock struct {
	Status              string             `json:"status"` // present | absent
	ManifestPath        string             `json:"manifest_path"`
	RocmVersion         *string            `json:"rocm_version"`
	RocmPackageVersion  *string            `json:"rocm_package_version"`
	TheRockCommit       *string            `json:"the_rock_commit"`
	GithubRunID         *string            `json:"github_run_id"`
	GithubJob           *string            `json:"github_job"`
	GemmLibrariesCommit *string            `json:"gemm_libraries_commit"`
	Submodules          []TheRockSubmodule `json:"submodules"`
}

// TheRockSubmodule is one pinned submodule of the manifest.
type TheRockSubmodule struct {
	Name    *string `json:"name"`
	URL     *string `json:"url"`
	PinSHA  *string `json:"pin_sha"`
	Patches Any     `json:"patches"` // the manifest's array verbatim, else []
}

// AMDGPUDriver is the amdgpu kernel driver: package, module and KFD nodes
// (core.md §8).
type AMDGPUDriver struct {
	Scope            string  `json:"scope"`              // always host_kernel
	Status           string  `json:"status"`             // present | absent
	PackageName      *string `json:"package_name"`       // Source: dpkg-query / rpm (amdgpu-dkms, amdgpu-kmod)
	PackageVersion   *string `json:"package_version"`    // Source: dpkg ${Version} / rpm %{VERSION}-%{RELEASE}
	PackageFullName  *string `json:"package_full_name"`  // Source: same query
	PackageManager   *string `json:"package_manager"`    // dpkg | rpm
	ModuleVersion    *string `json:"module_version"`     // Source: modinfo amdgpu (version)
	ModuleSrcversion *string `json:"module_srcversion"`  // Source: modinfo amdgpu (srcversion)
	KmdVersion       *string `json:"kmd_version"`        // Copied from rocm.kmd_version
	KFDDevicePresent bool    `json:"kfd_device_present"` // Source: /dev/kfd exists
	KFDSysfsPresent  bool    `json:"kfd_sysfs_present"`  // Source: /sys/class/kfd exists
}

// NotCapturedAMDGPUDriver is the absent shape of core.md §8.2.
func NotCapturedAMDGPUDriver() AMDGPUDriver {
	return AMDGPUDriver{Scope: "host_kernel", Status: "absent"}
}

// HIP is what hipconfig reports (core.md §9).
type HIP struct {
	Version   *string `json:"version"`
	Platform  *string `json:"platform"`
	Compiler  *string `json:"compiler"`
	Runtime   *string `json:"runtime"`
	CppConfig *string `json:"cpp_config"`
}

// GPUArch is the GPU agents rocm_agent_enumerator lists (core.md §10).
type GPUArch struct {
	AgentCount      *int     `json:"agent_count"`
	GfxTargets      []string `json:"gfx_targets,nullable"`
	AgentArchCounts Map[int] `json:"agent_arch_counts,nullable"`
}

// NICs is the presence and identity of the three RDMA NIC families
// (core.md §11), keys in registry order.
type NICs struct {
	AINIC    NIC `json:"ainic"`
	Broadcom NIC `json:"broadcom"`
	CX7      NIC `json:"cx7"`
}

// NotCapturedNICs is the disaster shape: presence unknown for every vendor.
func NotCapturedNICs() NICs { return NICs{} }

// NIC is one vendor: {"present": false|null}, or the Tier-1 (and for AINIC
// Tier-2) details when present.
type NIC struct {
	Present    *bool `json:"present"`
	*NICDetail `json:",inline"`
}

// NICDetail is what a present vendor reports.
type NICDetail struct {
	DriverVersion *string    `json:"driver_version"`
	Firmware      *string    `json:"firmware"`
	PkgVersion    *string    `json:"pkg_version"`
	RDMADevices   []string   `json:"rdma_devices,nullable"`
	Links         []RDMALink `json:"links,nullable"`
	*AINICDetail  `json:",inline"`
}

// RDMALink is one line of `rdma link`.
type RDMALink struct {
	Device string  `json:"device"`
	State  *string `json:"state"`
	Netdev *string `json:"netdev"`
}

// AINICDetail is the Tier-2 nicctl view, emitted only when nicctl is on PATH.
type AINICDetail struct {
	NicctlVersion *string      `json:"nicctl_version"`
	Card          AINICCard    `json:"card"`
	Profile       AINICProfile `json:"profile"`
	DCQCN         AINICDCQCN   `json:"dcqcn"`
}

type AINICCard struct {
	ASIC     *string `json:"asic"`
	HostSW   *string `json:"host_sw"`
	Firmware *string `json:"firmware"`
	UUID     *string `json:"uuid"`
}

type AINICProfile struct {
	DeviceConfig *string `json:"device_config"`
	SRIOV        *bool   `json:"sriov"`
}

type AINICDCQCN struct {
	Enabled         *bool `json:"enabled"`
	TokenBucketSize *int  `json:"token_bucket_size"`
	AIRate          *int  `json:"ai_rate"`
	HAIRate         *int  `json:"hai_rate"`
	CNPDSCP         *int  `json:"cnp_dscp"`
}
