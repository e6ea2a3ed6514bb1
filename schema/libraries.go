package schema

import "aorta-probe/internal/pyjson"

// GemmLibrary is the identity of hipBLASLt or rocBLAS
// (docs/rocm-libraries.md#hipblaslt--rocblas-filesystem).
type GemmLibrary struct {
	// VERSION_TWEAK define of the library's version header: the ROCm-release
	// identifier, e.g. dabb6df2b9.
	RocmReleaseTweak *string `py:"rocm_release_tweak"`
	// MAJOR.MINOR.PATCH of the same header, e.g. 1.2.2.
	PackageVersion *string `py:"package_version"`
	// sha256:<hex> of the library's shared object under <lib>/lib.
	LibHash *string `py:"lib_hash"`
	// filenames-sha256:<hex> over the Tensile library dir's .yaml/.dat/.co
	// names.
	KernelDBRevision *string `py:"kernel_db_revision"`
	// therock.gemm_libraries_commit (the rocm-libraries pin); null on classic
	// installs.
	UpstreamCommit *string `py:"upstream_commit"`
	// upstream_commit starts with rocm_release_tweak (case-insensitive); null
	// when either is null or empty, or the tweak is not 7–12 hex digits.
	UpstreamCommitMatchesTweak *bool                  `py:"upstream_commit_matches_tweak"`
	AppliedPRs                 pyjson.Map[pyjson.Any] `py:"applied_prs"` // always {}
}

// NotCapturedGemmLibrary is all null with applied_prs {}.
func NotCapturedGemmLibrary() GemmLibrary { return GemmLibrary{AppliedPRs: pyjson.Map[pyjson.Any]{}} }

// ComposableKernel is the system CK headers and the CK inside PyTorch
// (docs/python.md#4-field-reference-python-side-blocks).
type ComposableKernel struct {
	System         CKSystem  `py:"system"`          // CK headers under the ROCm include root.
	PytorchBundled CKBundled `py:"pytorch_bundled"` // CK symbols inside libtorch_hip.so.
	// torch.__config__.show() has -DUSE_ROCM_CK_SDPA; null when unknown.
	PytorchUseCKSDPA *bool `py:"pytorch_use_ck_sdpa"`
	// torch.__config__.show() has -DUSE_ROCM_CK_GEMM; null when unknown.
	PytorchUseCKGemm *bool `py:"pytorch_use_ck_gemm"`
}

type CKSystem struct {
	Version       *string `py:"version"`         // CK_VERSION_MAJOR.MINOR.PATCH of include/ck/version.h.
	Commit        *string `py:"commit"`          // CK_COMMIT_ID of the same header (7 to 40 hex digits).
	CKTilePresent bool    `py:"ck_tile_present"` // include/ck_tile/core/config.hpp exists.
}

type CKBundled struct {
	Present bool `py:"present"` // symbol_count > 0.
	// Demangled dynamic symbols of libtorch_hip.so containing ck::; null
	// without a dump.
	SymbolCount *int `py:"symbol_count"`
}

// Tensile is the Tensile package and the combined kernel-DB name fingerprint
// (docs/rocm-libraries.md#tensile-filesystem-except-package_version-process).
type Tensile struct {
	// Tensile.__version__ of the workload interpreter, or null.
	PackageVersion *string `py:"package_version"`
	// Combined filename fingerprint over the hipBLASLt then rocBLAS Tensile
	// library dirs.
	KernelDBCombinedHash *string `py:"kernel_db_combined_hash"`
}

// MIOpen is the identity of MIOpen
// (docs/rocm-libraries.md#miopen-filesystem).
type MIOpen struct {
	RocmReleaseTweak *string `py:"rocm_release_tweak"` // MIOPEN_VERSION_TWEAK of include/miopen/version.h.
	PackageVersion   *string `py:"package_version"`    // MAJOR.MINOR.PATCH of the same header.
	LibHash          *string `py:"lib_hash"`           // sha256:<hex> of libMIOpen.so.
	// filenames-sha256:<hex> over the .txt names of the packaged
	// share/miopen/db.
	KernelDBRevision *string `py:"kernel_db_revision"`
}

// RCCL is the identity of RCCL and its network plugin
// (docs/rocm-libraries.md#rccl-filesystem-plugin-fields-process-scope).
type RCCL struct {
	VersionCode   *int    `py:"version_code"`    // NCCL_VERSION_CODE of include/rccl/rccl.h, e.g. 22707.
	Version       *string `py:"version"`         // version_code decoded, e.g. 2.27.7.
	LibHash       *string `py:"lib_hash"`        // sha256:<hex> of librccl.so.
	NetPluginMode string  `py:"net_plugin_mode"` // internal | external | unknown
	PluginPath    *string `py:"plugin_path"`     // The file $NCCL_NET_PLUGIN resolved to, when external.
	PluginLibHash *string `py:"plugin_lib_hash"` // sha256:<hex> of plugin_path.
	// sha256:<hex> of librccl-anp.so, or null (documented absence).
	AnpLibHash *string `py:"anp_lib_hash"`
	// sha256:<hex> of librccl-net.so, or null (documented absence).
	NetLibHash *string `py:"net_lib_hash"`
}

// AOTriton is the AOTriton bundled with PyTorch
// (docs/python.md#4-field-reference-python-side-blocks).
type AOTriton struct {
	// A libaotriton_v2.so* sits in torch's lib dir.
	BundledPresent bool `py:"bundled_present"`
	// MAJOR.MINOR.PATCH of the highest versioned libaotriton_v2.so file name.
	BundledVersion *string `py:"bundled_version"`
	// sha256:<hex> of the chosen libaotriton_v2.so file.
	BundledLibHash *string `py:"bundled_lib_hash"`
	// <torch lib dir>/aotriton.images is a directory.
	BundledImagesDirPresent bool `py:"bundled_images_dir_present"`
	// Source: $AOTRITON_INSTALLED_PREFIX, raw.
	InstalledPrefix *string `py:"installed_prefix"`
}

// Menu is the enumeration of one kernel catalog directory
// (docs/rocm-libraries.md#gfx-subdirectory-rule).
type Menu struct {
	Status string  `py:"status"` // ok | partial
	Reason *string `py:"reason"` // Why status is partial, or null.
	Dir    *string `py:"dir"`    // The directory enumerated.
	// Entries whose suffix is a logic suffix.
	LogicFileCount *int `py:"logic_file_count"`
	// Entries counted (the dir and one level of gfx* subdirectories).
	FileCount *int `py:"file_count"`
	// gfx targets named in the entries, lower-cased, unique, sorted.
	GfxArchCoverage []string `py:"gfx_arch_coverage,nullable"`
	// The entries, with --extended; null in the compact default.
	Files []MenuFile `py:"files,nullable"`
	// content-sha256:<hex> over the name<TAB>sha256 lines; null when a file
	// was unreadable.
	CombinedContentHash *string `py:"combined_content_hash"`
}

// NotCapturedMenu is a partial menu with the given reason and nothing else.
func NotCapturedMenu(reason string) Menu {
	return Menu{Status: "partial", Reason: Str(reason)}
}

// MenuFile is one catalog member, listed with --extended.
type MenuFile struct {
	Name    string  `py:"name"`     // Display name: basename, or gfxdir/basename.
	Size    *int64  `py:"size"`     // stat size, following symlinks, or null.
	Suffix  string  `py:"suffix"`   // Canonical lower-case suffix label.
	IsLogic bool    `py:"is_logic"` // The suffix is a logic suffix.
	SHA256  *string `py:"sha256"`   // sha256:<hex> of the file, or null when unreadable.
}

// The constant doc strings the three catalog blocks carry, verbatim as the
// Python probe writes them.
const (
	TensileCatalogDoc = "Installed-library identity (the 'recipe book'): which hipBLASLt/rocBLAS Tensile solution menu is installed on disk. Does NOT capture the runtime-selected solution ID (e.g. 381881/368xxx) -- that needs a runtime trace (separate capability). Two hosts can report the same hipBLASLt commit yet ship a materially different Tensile menu; this block makes that diffable from the installed files alone."
	MIOpenCatalogDoc  = "Installed-library identity (the 'recipe book') for MIOpen's convolution databases on disk: find-db (solver selection), perf-db (tuned params), kernel-db (precompiled kernels), and heuristic tuning models. Does NOT capture the runtime-selected solver for a given conv -- that needs a runtime trace. Enumerated from the effective system db dir (honoring MIOPEN_SYSTEM_DB_PATH)."
	RocFFTCatalogDoc  = "Installed-library identity for rocFFT's OPTIONAL ahead-of-time kernel cache (rocfft_kernel_cache.db) -- the READ-ONLY system cache, NOT the read-write runtime user cache (ROCFFT_RTC_CACHE_PATH). rocFFT usually compiles kernels at runtime, so absence is normal (status='absent', not a failure). When present, the cache is a frozen on-disk artifact and is fingerprinted by content hash. Does NOT capture runtime-compiled kernels."
)

// TensileCatalog is the installed Tensile solution menus
// (docs/rocm-libraries.md#tensile_catalog-filesystem).
type TensileCatalog struct {
	Doc       string            `py:"doc"`       // Constant explanation of the block.
	Status    string            `py:"status"`    // ok when both menus are ok.
	HipBLASLt TensileCatalogLib `py:"hipblaslt"` // hipBLASLt's menu and identity.
	RocBLAS   TensileCatalogLib `py:"rocblas"`   // rocBLAS's menu and identity.
	Combined  Tensile           `py:"combined"`  // Same as the top-level tensile block.
}

type TensileCatalogLib struct {
	PackageVersion   *string `py:"package_version"`    // Copied from the library's identity block.
	LibHash          *string `py:"lib_hash"`           // Copied from the library's identity block.
	KernelDBRevision *string `py:"kernel_db_revision"` // Copied from the library's identity block.
	Menu             Menu    `py:"menu"`               // Enumeration of <lib>/lib/<library>/library.
}

// NotCapturedTensileCatalog is the not-captured shape
// (docs/fields-process.md#the-not-captured-document).
func NotCapturedTensileCatalog() TensileCatalog {
	lib := TensileCatalogLib{Menu: NotCapturedMenu("tensile_catalog not captured")}
	return TensileCatalog{Doc: TensileCatalogDoc, Status: "partial", HipBLASLt: lib, RocBLAS: lib}
}

// MIOpenCatalog is the installed MIOpen databases
// (docs/rocm-libraries.md#miopen_catalog-filesystem-the-directory-choice-is-process-scope).
type MIOpenCatalog struct {
	Doc            string  `py:"doc"`             // Constant explanation of the block.
	Status         string  `py:"status"`          // menu.status.
	PackageVersion *string `py:"package_version"` // Copied from miopen.
	LibHash        *string `py:"lib_hash"`        // Copied from miopen.
	// Copied from miopen when db_dir_source is default.
	KernelDBRevision *string `py:"kernel_db_revision"`
	// $MIOPEN_SYSTEM_DB_PATH, else <lib>/share/miopen/db.
	DBDir       *string `py:"db_dir"`
	DBDirSource *string `py:"db_dir_source"` // Which of the two answered.
	// MIOPEN_SYSTEM_DB_PATH and MIOPEN_USER_DB_PATH, or null when unset.
	EnvOverrides pyjson.Map[*string] `py:"env_overrides"`
	Menu         Menu                `py:"menu"` // Enumeration of db_dir.
}

// NotCapturedMIOpenCatalog is the not-captured shape
// (docs/fields-process.md#the-not-captured-document).
func NotCapturedMIOpenCatalog() MIOpenCatalog {
	return MIOpenCatalog{
		Doc: MIOpenCatalogDoc, Status: "partial",
		EnvOverrides: pyjson.Map[*string]{{Key: "MIOPEN_SYSTEM_DB_PATH", Value: nil}, {Key: "MIOPEN_USER_DB_PATH", Value: nil}},
		Menu:         NotCapturedMenu("miopen_catalog not captured"),
	}
}

// RocFFTCatalog is rocFFT's optional system kernel cache
// (docs/rocm-libraries.md#rocfft_catalog-filesystem-the-override-is-process-scope).
type RocFFTCatalog struct {
	Doc    string `py:"doc"`    // Constant explanation of the block.
	Status string `py:"status"` // ok | partial | absent
	// ROCFFT_RTC_SYS_CACHE_PATH and ROCFFT_RTC_CACHE_PATH, or null when unset.
	EnvOverrides pyjson.Map[*string] `py:"env_overrides"`
	KernelCache  KernelCache         `py:"kernel_cache"` // The read-only system kernel cache file.
}

type KernelCache struct {
	Present bool    `py:"present"` // A cache file was found.
	Path    *string `py:"path"`    // Its path.
	Source  *string `py:"source"`  // Where it was found.
	Size    *int64  `py:"size"`    // Its size.
	SHA256  *string `py:"sha256"`  // sha256:<hex> of the whole file.
	Reason  *string `py:"reason"`  // Why it could not be hashed, or not captured.
}

// NotCapturedRocFFTCatalog is the not-captured shape
// (docs/fields-process.md#the-not-captured-document).
func NotCapturedRocFFTCatalog() RocFFTCatalog {
	return RocFFTCatalog{
		Doc: RocFFTCatalogDoc, Status: "partial",
		EnvOverrides: pyjson.Map[*string]{{Key: "ROCFFT_RTC_SYS_CACHE_PATH", Value: nil}, {Key: "ROCFFT_RTC_CACHE_PATH", Value: nil}},
		KernelCache:  KernelCache{Reason: Str("rocfft_catalog not captured")},
	}
}
