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
	Status string `json:"status"` // present | absent
	// Path of therock_manifest.json; always filled, even when absent.
	ManifestPath string  `json:"manifest_path"`
	RocmVersion  *string `json:"rocm_version"` // Manifest rocm_version, cleaned.
	// Manifest rocm_package_version, cleaned.
	RocmPackageVersion *string `json:"rocm_package_version"`
	// Manifest the_rock_commit, cleaned.
	TheRockCommit *string `json:"the_rock_commit"`
	GithubRunID   *string `json:"github_run_id"` // Manifest github_run_id, cleaned.
	GithubJob     *string `json:"github_job"`    // Manifest github_job, cleaned.
	// pin_sha of the submodule named rocm-libraries (the last one when
	// several), or null.
	GemmLibrariesCommit *string `json:"gemm_libraries_commit"`
	// The manifest's submodule objects, in order; [] when none.
	Submodules []TheRockSubmodule `json:"submodules"`
}

// TheRockSubmodule is one pinned submodule of the manifest.
type TheRockSubmodule struct {
	Name    *string `json:"name"`    // submodule_name, cleaned.
	URL     *string `json:"url"`     // submodule_url, cleaned.
	PinSHA  *string `json:"pin_sha"` // pin_sha, cleaned.
	Patches Any     `json:"patches"` // the manifest's array verbatim, else []
}

// AMDGPUDriver is the amdgpu kernel driver: package, module and KFD nodes
// (core.md §8).
type AMDGPUDriver struct {
	Scope  string `json:"scope"`  // always host_kernel
	Status string `json:"status"` // present | absent
	// Source: dpkg-query / rpm (amdgpu-dkms, amdgpu-kmod)
	PackageName *string `json:"package_name"`
	// Source: dpkg ${Version} / rpm %{VERSION}-%{RELEASE}
	PackageVersion   *string `json:"package_version"`
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

// HIP is what hipconfig reports (core.md §9). Scope: filesystem (the
// hipconfig on the probe's PATH; no <core>/bin fallback).
type HIP struct {
	Version   *string `json:"version"`    // Source: hipconfig --version, stripped
	Platform  *string `json:"platform"`   // Source: hipconfig --platform
	Compiler  *string `json:"compiler"`   // Source: hipconfig --compiler
	Runtime   *string `json:"runtime"`    // Source: hipconfig --runtime
	CppConfig *string `json:"cpp_config"` // Source: hipconfig --cpp_config
}

// GPUArch is the GPU agents rocm_agent_enumerator lists (core.md §10).
// Scope: host kernel (KFD topology); the tool comes from the filesystem.
type GPUArch struct {
	// Source: rocm_agent_enumerator stdout, non-blank lines other than gfx000.
	AgentCount *int `json:"agent_count"`
	// Source: the same lines, unique, sorted by code point.
	GfxTargets []string `json:"gfx_targets,nullable"`
	// Source: the same lines, counted per target (keys sorted).
	AgentArchCounts Map[int] `json:"agent_arch_counts,nullable"`
}

// NICs is the presence and identity of the three RDMA NIC families
// (core.md §11), keys in registry order.
type NICs struct {
	AINIC    NIC `json:"ainic"`    // lspci -d 1dd8:1002, driver ionic
	Broadcom NIC `json:"broadcom"` // lspci -d 14e4:1760, driver bnxt_en
	CX7      NIC `json:"cx7"`      // lspci -d 15b3:1021, driver mlx5_core
}

// NotCapturedNICs is the disaster shape: presence unknown for every vendor.
func NotCapturedNICs() NICs { return NICs{} }

// NIC is one vendor: {"present": false|null}, or the Tier-1 (and for AINIC
// Tier-2) details when present.
type NIC struct {
	// Source: lspci -d <id>: output true, empty false, failure null.
	// Scope: host hardware (PCI).
	Present    *bool `json:"present"`
	*NICDetail `json:",inline"`
}

// NICDetail is what a present vendor reports (Tier 1, sudo-free).
type NICDetail struct {
	// Source: /sys/module/<driver>/version, else ethtool -i "version:".
	DriverVersion *string `json:"driver_version"`
	// Source: ethtool -i "firmware-version:", the part before "/pkg".
	Firmware *string `json:"firmware"`
	// Source: the part of firmware-version after "/pkg".
	PkgVersion *string `json:"pkg_version"`
	// Source: ibv_devices, kept when /sys/class/infiniband/<dev>/device/driver
	// names the vendor's driver. Always a list ([] when none or unknown).
	RDMADevices []string `json:"rdma_devices,nullable"`
	// Source: rdma link, kept when the netdev's (else the device's) driver
	// link names the vendor's driver. Always a list.
	Links        []RDMALink `json:"links,nullable"`
	*AINICDetail `json:",inline"`
}

// RDMALink is one line of `rdma link`.
type RDMALink struct {
	Device string  `json:"device"` // second token up to its first '/'
	State  *string `json:"state"`  // token after "state"
	Netdev *string `json:"netdev"` // token after "netdev"
}

// AINICDetail is the Tier-2 nicctl view, emitted only when nicctl is on
// PATH. Scope: root via `sudo -n -E nicctl ...`.
type AINICDetail struct {
	NicctlVersion *string      `json:"nicctl_version"` // Source: nicctl --version
	Card          AINICCard    `json:"card"`           // The card's identity.
	Profile       AINICProfile `json:"profile"`        // The card's device configuration profile.
	DCQCN         AINICDCQCN   `json:"dcqcn"`          // DCQCN profile 1 of the first RDMA device.
}

// AINICCard identifies the AINIC card.
type AINICCard struct {
	ASIC     *string `json:"asic"`     // Source: nicctl show card --detail (salina|elba|giglio, upper-cased)
	HostSW   *string `json:"host_sw"`  // Source: nicctl show version host-software --json
	Firmware *string `json:"firmware"` // Source: nicctl show version firmware --json, else card --detail
	UUID     *string `json:"uuid"`     // Source: nicctl show card --detail (first UUID)
}

// AINICProfile is the card's device configuration profile.
type AINICProfile struct {
	DeviceConfig *string `json:"device_config"` // Source: nicctl show card profile -c <uuid>
	SRIOV        *bool   `json:"sriov"`         // device_config contains "_vf"
}

// AINICDCQCN is DCQCN profile 1 of the first AINIC RDMA device.
// Source: nicctl show dcqcn --roce-device <dev> --profile-id 1.
type AINICDCQCN struct {
	Enabled         *bool `json:"enabled"`           // DCQCN enabled.
	TokenBucketSize *int  `json:"token_bucket_size"` // Token bucket size.
	AIRate          *int  `json:"ai_rate"`           // Additive increase rate.
	HAIRate         *int  `json:"hai_rate"`          // Hyper additive increase rate.
	CNPDSCP         *int  `json:"cnp_dscp"`          // DSCP of congestion notification packets.
}
