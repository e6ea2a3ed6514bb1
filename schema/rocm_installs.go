package schema

// ROCmInstalls is every ROCm install the probe can see on the probed
// filesystem, which one the rocm block describes and where the dynamic
// loader would take the ROCm libraries from
// (docs/rocm-roots.md#every-install-rocm_installs). The rocm block keeps
// the Python probe's answer; this one names what is really there.
type ROCmInstalls struct {
	// Installs in a stable order: $ROCM_PATH, $ROCM_HOME, /opt/rocm,
	// /opt/rocm-* (by name), the distribution's /usr, then TheRock wheels
	// in Python search-path order; one entry per directory.
	Installs []ROCmInstall `py:"installs"`
	// Described is the root of the install the rocm block describes
	// (rocm.root), or null when rocm.root_source is none or its root is not
	// an install.
	Described *string `py:"described"`
	// Loader says, for libamdhip64.so, librocblas.so and libhipblaslt.so in
	// this order, which file the dynamic loader would resolve.
	Loader []LoaderResolution `py:"loader"`
}

// ROCmInstall is one ROCm install.
type ROCmInstall struct {
	// Kind: rocm_path (a root only $ROCM_PATH or $ROCM_HOME names),
	// opt_rocm (/opt/rocm, /opt/rocm-X.Y.Z), distro (the distribution's
	// packages under /usr), therock (a tree holding
	// share/therock/therock_manifest.json) or wheel (a _rocm_sdk_core
	// package on the Python search path).
	Kind string `py:"kind"`
	// Root is the install's directory as first found.
	Root string `py:"root"`
	// Aliases are the other names of the same directory, in the order
	// found: paths (a /opt/rocm link), $ROCM_PATH, $ROCM_HOME.
	Aliases []string `py:"aliases"`
	// Version is the install's ROCm or HIP version, or null.
	Version *string `py:"version"`
	// VersionSource: info_version (<root>/.info/version), dpkg (the
	// package database), therock_manifest, wheel_metadata (a dist-info
	// METADATA Version), hipconfig (hip.version, when the hipconfig on PATH
	// is <root>/bin/hipconfig), library_name (the version in the real name
	// of libamdhip64.so.*); null with the version.
	VersionSource *string `py:"version_source"`
	// Package is the package or distribution the version came from, as
	// name=version (dpkg, wheel_metadata), or null.
	Package *string `py:"package"`
	// Described is true for the install the rocm block describes.
	Described bool `py:"described"`
}

// LoaderResolution is where the dynamic loader would find one library.
type LoaderResolution struct {
	// Library is the name asked for: libamdhip64.so, librocblas.so or
	// libhipblaslt.so.
	Library string `py:"library"`
	// Path is the file the loader would open: the name itself or its
	// highest versioned soname, in $LD_LIBRARY_PATH, then /etc/ld.so.cache,
	// then /lib and /usr/lib; null when none has it.
	Path *string `py:"path"`
	// Via: LD_LIBRARY_PATH, ld.so.cache, default_dirs; null with the path.
	Via *string `py:"via"`
	// Install is the root of the install that holds Path, or null.
	Install *string `py:"install"`
}
