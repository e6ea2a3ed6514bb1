package schema

// GemmLibrary is the identity of hipBLASLt or rocBLAS (core.md §12.1–12.2).
type GemmLibrary struct {
	RocmReleaseTweak           *string  `json:"rocm_release_tweak"`
	PackageVersion             *string  `json:"package_version"`
	LibHash                    *string  `json:"lib_hash"`
	KernelDBRevision           *string  `json:"kernel_db_revision"`
	UpstreamCommit             *string  `json:"upstream_commit"`
	UpstreamCommitMatchesTweak *bool    `json:"upstream_commit_matches_tweak"`
	AppliedPRs                 Map[Any] `json:"applied_prs"` // always {}
}

// NotCapturedGemmLibrary is all null with applied_prs {}.
func NotCapturedGemmLibrary() GemmLibrary { return GemmLibrary{AppliedPRs: Map[Any]{}} }

// ComposableKernel is the system CK headers and the CK inside PyTorch
// (core.md §12.3).
type ComposableKernel struct {
	System           CKSystem  `json:"system"`
	PytorchBundled   CKBundled `json:"pytorch_bundled"`
	PytorchUseCKSDPA *bool     `json:"pytorch_use_ck_sdpa"`
	PytorchUseCKGemm *bool     `json:"pytorch_use_ck_gemm"`
}

type CKSystem struct {
	Version       *string `json:"version"`
	Commit        *string `json:"commit"`
	CKTilePresent bool    `json:"ck_tile_present"`
}

type CKBundled struct {
	Present     bool `json:"present"`
	SymbolCount *int `json:"symbol_count"`
}

// Tensile is the Tensile package and the combined kernel-DB name fingerprint
// (core.md §12.4).
type Tensile struct {
	PackageVersion       *string `json:"package_version"`
	KernelDBCombinedHash *string `json:"kernel_db_combined_hash"`
}

// MIOpen is the identity of MIOpen (core.md §12.5).
type MIOpen struct {
	RocmReleaseTweak *string `json:"rocm_release_tweak"`
	PackageVersion   *string `json:"package_version"`
	LibHash          *string `json:"lib_hash"`
	KernelDBRevision *string `json:"kernel_db_revision"`
}

// RCCL is the identity of RCCL and its network plugin (core.md §12.6).
type RCCL struct {
	VersionCode   *int    `json:"version_code"`
	Version       *string `json:"version"`
	LibHash       *string `json:"lib_hash"`
	NetPluginMode string  `json:"net_plugin_mode"` // internal | external | unknown
	PluginPath    *string `json:"plugin_path"`
	PluginLibHash *string `json:"plugin_lib_hash"`
	AnpLibHash    *string `json:"anp_lib_hash"`
	NetLibHash    *string `json:"net_lib_hash"`
}

// AOTriton is the AOTriton bundled with PyTorch (core.md §12.7).
type AOTriton struct {
	BundledPresent          bool    `json:"bundled_present"`
	BundledVersion          *string `json:"bundled_version"`
	BundledLibHash          *string `json:"bundled_lib_hash"`
	BundledImagesDirPresent bool    `json:"bundled_images_dir_present"`
	// Source: $AOTRITON_INSTALLED_PREFIX, raw.
	InstalledPrefix *string `json:"installed_prefix"`
}

// Menu is the enumeration of one kernel catalog directory (core.md §3.6).
type Menu struct {
	Status              string     `json:"status"` // ok | partial
	Reason              *string    `json:"reason"`
	Dir                 *string    `json:"dir"`
	LogicFileCount      *int       `json:"logic_file_count"`
	FileCount           *int       `json:"file_count"`
	GfxArchCoverage     []string   `json:"gfx_arch_coverage,nullable"`
	Files               []MenuFile `json:"files,nullable"`
	CombinedContentHash *string    `json:"combined_content_hash"`
}

// NotCapturedMenu is a partial menu with the given reason and nothing else.
func NotCapturedMenu(reason string) Menu {
	return Menu{Status: "partial", Reason: Str(reason)}
}

// MenuFile is one catalog member, listed with --extended.
type MenuFile struct {
	Name    string  `json:"name"`
	Size    *int64  `json:"size"`
	Suffix  string  `json:"suffix"`
	IsLogic bool    `json:"is_logic"`
	SHA256  *string `json:"sha256"`
}

// The constant doc strings of core.md §13.5.
const (
	TensileCatalogDoc = "Installed-library identity (the 'recipe book'): which hipBLASLt/rocBLAS Tensile solution menu is installed on disk. Does NOT capture the runtime-selected solution ID (e.g. 381881/368xxx) -- that needs a runtime trace (separate capability). Two hosts can report the same hipBLASLt commit yet ship a materially different Tensile menu; this block makes that diffable from the installed files alone."
	MIOpenCatalogDoc  = "Installed-library identity (the 'recipe book') for MIOpen's convolution databases on disk: find-db (solver selection), perf-db (tuned params), kernel-db (precompiled kernels), and heuristic tuning models. Does NOT capture the runtime-selected solver for a given conv -- that needs a runtime trace. Enumerated from the effective system db dir (honoring MIOPEN_SYSTEM_DB_PATH)."
	RocFFTCatalogDoc  = "Installed-library identity for rocFFT's OPTIONAL ahead-of-time kernel cache (rocfft_kernel_cache.db) -- the READ-ONLY system cache, NOT the read-write runtime user cache (ROCFFT_RTC_CACHE_PATH). rocFFT usually compiles kernels at runtime, so absence is normal (status='absent', not a failure). When present, the cache is a frozen on-disk artifact and is fingerprinted by content hash. Does NOT capture runtime-compiled kernels."
)

// TensileCatalog is the installed Tensile solution menus (core.md §13.1).
type TensileCatalog struct {
	Doc       string            `json:"doc"`
	Status    string            `json:"status"`
	HipBLASLt TensileCatalogLib `json:"hipblaslt"`
	RocBLAS   TensileCatalogLib `json:"rocblas"`
	Combined  Tensile           `json:"combined"`
}

type TensileCatalogLib struct {
	PackageVersion   *string `json:"package_version"`
	LibHash          *string `json:"lib_hash"`
	KernelDBRevision *string `json:"kernel_db_revision"`
	Menu             Menu    `json:"menu"`
}

// NotCapturedTensileCatalog is the shape of core.md §13.4.
func NotCapturedTensileCatalog() TensileCatalog {
	lib := TensileCatalogLib{Menu: NotCapturedMenu("tensile_catalog not captured")}
	return TensileCatalog{Doc: TensileCatalogDoc, Status: "partial", HipBLASLt: lib, RocBLAS: lib}
}

// MIOpenCatalog is the installed MIOpen databases (core.md §13.2).
type MIOpenCatalog struct {
	Doc              string       `json:"doc"`
	Status           string       `json:"status"`
	PackageVersion   *string      `json:"package_version"`
	LibHash          *string      `json:"lib_hash"`
	KernelDBRevision *string      `json:"kernel_db_revision"`
	DBDir            *string      `json:"db_dir"`
	DBDirSource      *string      `json:"db_dir_source"`
	EnvOverrides     Map[*string] `json:"env_overrides"`
	Menu             Menu         `json:"menu"`
}

// NotCapturedMIOpenCatalog is the shape of core.md §13.4.
func NotCapturedMIOpenCatalog() MIOpenCatalog {
	return MIOpenCatalog{
		Doc: MIOpenCatalogDoc, Status: "partial",
		EnvOverrides: Map[*string]{{"MIOPEN_SYSTEM_DB_PATH", nil}, {"MIOPEN_USER_DB_PATH", nil}},
		Menu:         NotCapturedMenu("miopen_catalog not captured"),
	}
}

// RocFFTCatalog is rocFFT's optional system kernel cache (core.md §13.3).
type RocFFTCatalog struct {
	Doc          string       `json:"doc"`
	Status       string       `json:"status"` // ok | partial | absent
	EnvOverrides Map[*string] `json:"env_overrides"`
	KernelCache  KernelCache  `json:"kernel_cache"`
}

type KernelCache struct {
	Present bool    `json:"present"`
	Path    *string `json:"path"`
	Source  *string `json:"source"`
	Size    *int64  `json:"size"`
	SHA256  *string `json:"sha256"`
	Reason  *string `json:"reason"`
}

// NotCapturedRocFFTCatalog is the shape of core.md §13.4.
func NotCapturedRocFFTCatalog() RocFFTCatalog {
	return RocFFTCatalog{
		Doc: RocFFTCatalogDoc, Status: "partial",
		EnvOverrides: Map[*string]{{"ROCFFT_RTC_SYS_CACHE_PATH", nil}, {"ROCFFT_RTC_CACHE_PATH", nil}},
		KernelCache:  KernelCache{Reason: Str("rocfft_catalog not captured")},
	}
}
