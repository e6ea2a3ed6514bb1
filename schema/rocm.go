package schema

import "aorta-probe/internal/pyjson"

// ROCm is the ROCm userspace the filesystem holds
// (docs/fields-process.md#rocm-filesystem-kmd_version-host-kernel).
type ROCm struct {
	// Source: <core>/.info/version, else the TheRock manifest, pip metadata
	// or torch's +rocm segment (see VersionSource).
	Version *string `py:"version"`
	// Source: <core>/.info/version-dev, else the manifest's rocm_package_version.
	VersionDev *string `py:"version_dev"`
	// Source: /sys/module/amdgpu/version. Scope: host kernel.
	KmdVersion *string `py:"kmd_version"`
	// Which step of the version chain answered, or null.
	VersionSource *string `py:"version_source"`
	// The resolved core root (docs/rocm-roots.md). Scope: process.
	Root string `py:"root"`
	// The resolved libraries root.
	LibRoot string `py:"lib_root"`
	// ROCM_PATH, ROCM_HOME, opt_rocm, import:_rocm_sdk_core or none.
	RootSource string `py:"root_source"`
	// classic or wheel.
	Layout string `py:"layout"`
}

// TheRock is the TheRock build manifest, when the install has one
// (docs/fields-process.md#therock-filesystem).
type TheRock struct {
	// present | absent | invalid (the file is there but empty, unreadable,
	// not JSON or not an object; the block then has the absent shape).
	Status string `py:"status"`
	// Path of therock_manifest.json; always filled, even when absent.
	ManifestPath string  `py:"manifest_path"`
	RocmVersion  *string `py:"rocm_version"` // Manifest rocm_version, cleaned.
	// Manifest rocm_package_version, cleaned.
	RocmPackageVersion *string `py:"rocm_package_version"`
	// Manifest the_rock_commit, cleaned.
	TheRockCommit *string `py:"the_rock_commit"`
	GithubRunID   *string `py:"github_run_id"` // Manifest github_run_id, cleaned.
	GithubJob     *string `py:"github_job"`    // Manifest github_job, cleaned.
	// pin_sha of the submodule named rocm-libraries (the last one when
	// several), or null (also when that pin is not a full 40-hex id).
	GemmLibrariesCommit *string `py:"gemm_libraries_commit"`
	// The manifest's submodule objects, in order; [] when none.
	Submodules []TheRockSubmodule `py:"submodules"`
}

// TheRockSubmodule is one pinned submodule of the manifest.
type TheRockSubmodule struct {
	Name *string `py:"name"` // submodule_name, cleaned.
	URL  *string `py:"url"`  // submodule_url, cleaned.
	// pin_sha, cleaned and lower-cased; null unless 40 hex digits.
	PinSHA  *string    `py:"pin_sha"`
	Patches pyjson.Any `py:"patches"` // the manifest's array verbatim, else []
}

// AMDGPUDriver is the amdgpu kernel driver: package, module and KFD nodes
// (docs/fields-process.md#amdgpu_driver-filesystem--host-kernel).
type AMDGPUDriver struct {
	Scope  string `py:"scope"`  // always host_kernel
	Status string `py:"status"` // present | absent
	// Source: dpkg-query / rpm (amdgpu-dkms, amdgpu-kmod)
	PackageName *string `py:"package_name"`
	// Source: dpkg ${Version} / rpm %{VERSION}-%{RELEASE}
	PackageVersion   *string `py:"package_version"`
	PackageFullName  *string `py:"package_full_name"`  // Source: same query
	PackageManager   *string `py:"package_manager"`    // dpkg | rpm
	ModuleVersion    *string `py:"module_version"`     // Source: modinfo amdgpu (version)
	ModuleSrcversion *string `py:"module_srcversion"`  // Source: modinfo amdgpu (srcversion)
	KmdVersion       *string `py:"kmd_version"`        // Copied from rocm.kmd_version
	KFDDevicePresent bool    `py:"kfd_device_present"` // Source: /dev/kfd exists
	KFDSysfsPresent  bool    `py:"kfd_sysfs_present"`  // Source: /sys/class/kfd exists
}

// NotCapturedAMDGPUDriver is the absent shape
// (docs/fields-process.md#the-not-captured-document).
func NotCapturedAMDGPUDriver() AMDGPUDriver {
	return AMDGPUDriver{Scope: "host_kernel", Status: "absent"}
}

// HIP is what hipconfig reports (docs/hardware.md#hip--hipconfig). Scope:
// filesystem (the hipconfig on the probe's PATH; no <core>/bin fallback).
type HIP struct {
	Version   *string `py:"version"`    // Source: hipconfig --version, stripped
	Platform  *string `py:"platform"`   // Source: hipconfig --platform
	Compiler  *string `py:"compiler"`   // Source: hipconfig --compiler
	Runtime   *string `py:"runtime"`    // Source: hipconfig --runtime
	CppConfig *string `py:"cpp_config"` // Source: hipconfig --cpp_config
}

// GPUArch is the GPU agents rocm_agent_enumerator lists
// (docs/hardware.md#gpu_arch--rocm_agent_enumerator). Scope: host kernel (KFD
// topology); the tool comes from the filesystem.
type GPUArch struct {
	// Source: rocm_agent_enumerator stdout, non-blank lines other than gfx000.
	AgentCount *int `py:"agent_count"`
	// Source: the same lines, unique, sorted by code point.
	GfxTargets []string `py:"gfx_targets,nullable"`
	// Source: the same lines, counted per target (keys sorted).
	AgentArchCounts pyjson.Map[int] `py:"agent_arch_counts,nullable"`
}

// NICs is the presence and identity of the three RDMA NIC families
// (docs/hardware.md#nics), keys in registry order.
type NICs struct {
	AINIC    NIC `py:"ainic"`    // lspci -d 1dd8:1002, driver ionic
	Broadcom NIC `py:"broadcom"` // lspci -d 14e4:1760, driver bnxt_en
	CX7      NIC `py:"cx7"`      // lspci -d 15b3:1021, driver mlx5_core
}

// NotCapturedNICs is the disaster shape: presence unknown for every vendor.
func NotCapturedNICs() NICs { return NICs{} }

// NIC is one vendor: {"present": false|null}, or the Tier-1 (and for AINIC
// Tier-2) details when present.
type NIC struct {
	// Source: lspci -d <id>: output true, empty false, failure null.
	// Scope: host hardware (PCI).
	Present    *bool `py:"present"`
	*NICDetail `py:",inline"`
}

// NICDetail is what a present vendor reports (Tier 1, sudo-free).
type NICDetail struct {
	// Source: /sys/module/<driver>/version, else ethtool -i "version:".
	DriverVersion *string `py:"driver_version"`
	// Source: ethtool -i "firmware-version:", the part before "/pkg".
	Firmware *string `py:"firmware"`
	// Source: the part of firmware-version after "/pkg".
	PkgVersion *string `py:"pkg_version"`
	// Source: ibv_devices, kept when /sys/class/infiniband/<dev>/device/driver
	// names the vendor's driver. Always a list ([] when none or unknown).
	RDMADevices []string `py:"rdma_devices,nullable"`
	// Source: rdma link, kept when the netdev's (else the device's) driver
	// link names the vendor's driver. Always a list.
	Links        []RDMALink `py:"links,nullable"`
	*AINICDetail `py:",inline"`
}

// RDMALink is one line of `rdma link`.
type RDMALink struct {
	Device string  `py:"device"` // second token up to its first '/'
	State  *string `py:"state"`  // token after "state"
	Netdev *string `py:"netdev"` // token after "netdev"
}

// AINICDetail is the Tier-2 nicctl view, emitted only when nicctl is on
// PATH. Scope: root via `sudo -n -E nicctl ...`.
type AINICDetail struct {
	NicctlVersion *string      `py:"nicctl_version"` // Source: nicctl --version
	Card          AINICCard    `py:"card"`           // The card's identity.
	Profile       AINICProfile `py:"profile"`        // The card's device configuration profile.
	DCQCN         AINICDCQCN   `py:"dcqcn"`          // DCQCN profile 1 of the first RDMA device.
}

// AINICCard identifies the AINIC card.
type AINICCard struct {
	ASIC     *string `py:"asic"`     // Source: nicctl show card --detail (salina|elba|giglio, upper-cased)
	HostSW   *string `py:"host_sw"`  // Source: nicctl show version host-software --json
	Firmware *string `py:"firmware"` // Source: nicctl show version firmware --json, else card --detail
	UUID     *string `py:"uuid"`     // Source: nicctl show card --detail (first UUID)
}

// AINICProfile is the card's device configuration profile.
type AINICProfile struct {
	DeviceConfig *string `py:"device_config"` // Source: nicctl show card profile -c <uuid>
	SRIOV        *bool   `py:"sriov"`         // device_config contains "_vf"
}

// AINICDCQCN is DCQCN profile 1 of the first AINIC RDMA device.
// Source: nicctl show dcqcn --roce-device <dev> --profile-id 1.
type AINICDCQCN struct {
	Enabled         *bool `py:"enabled"`           // DCQCN enabled.
	TokenBucketSize *int  `py:"token_bucket_size"` // Token bucket size.
	AIRate          *int  `py:"ai_rate"`           // Additive increase rate.
	HAIRate         *int  `py:"hai_rate"`          // Hyper additive increase rate.
	CNPDSCP         *int  `py:"cnp_dscp"`          // DSCP of congestion notification packets.
}
