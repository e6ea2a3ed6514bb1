package schema

// PytorchBuild is how the workload's PyTorch was built (context.md §12).
type PytorchBuild struct {
	GitCommit           *string             `json:"git_commit"`
	HIPVersion          *string             `json:"hip_version"`
	CUDAVersion         *string             `json:"cuda_version"`
	Debug               Any                 `json:"debug"`
	InstallKind         string              `json:"install_kind"` // source | editable | wheel | unknown
	SourcePath          *string             `json:"source_path"`
	SubmoduleCommits    SubmoduleCommits    `json:"submodule_commits"`
	Flags               PytorchFlags        `json:"flags"`
	BuildFlags          Map[Any]            `json:"build_flags"`
	BinaryIntrospection BinaryIntrospection `json:"binary_introspection"`
	CMakeCache          CMakeCache          `json:"cmake_cache"`
	NinjaHIPCC          NinjaHIPCC          `json:"ninja_hipcc"`
}

// BuildFlagNames are the 17 keys of pytorch_build.build_flags, in order.
var BuildFlagNames = []string{
	"USE_FLASH_ATTENTION", "USE_ROCM_CK_SDPA", "USE_AOTRITON", "USE_MEM_EFF_ATTENTION",
	"DISABLE_AOTRITON", "USE_ROCM", "USE_CUDA", "USE_CUDNN", "USE_MIOPEN", "USE_FBGEMM",
	"USE_FBGEMM_GENAI", "USE_NCCL", "USE_MKL", "USE_MKLDNN", "USE_OPENMP", "USE_KINETO",
	"BUILD_TYPE",
}

// SymbolMarkers are the keys of binary_introspection.libtorch_hip_symbol_counts.
var SymbolMarkers = []string{
	"pytorch_flash::", "mha_fwd_aot", "mha_fwd_ck", "_efficient_attention", "aotriton::",
	"ck_tile::FmhaFwd", "ck_tile::FmhaBwd", "ck_tile::BlockFmha", "ck_tile::TileFmha",
	"group_gemm_ck", "aiter::",
}

// NotCapturedPytorchBuild is the disaster shape of context.md §1.5.
func NotCapturedPytorchBuild() PytorchBuild {
	flags := Map[Any]{}
	for _, n := range BuildFlagNames {
		flags = append(flags, Entry[Any]{n, nil})
	}
	counts := Map[*int]{}
	for _, m := range SymbolMarkers {
		counts = append(counts, Entry[*int]{m, nil})
	}
	return PytorchBuild{
		InstallKind:         "unknown",
		BuildFlags:          flags,
		BinaryIntrospection: BinaryIntrospection{LibtorchHIPSymbolCounts: counts},
	}
}

type SubmoduleCommits struct {
	ComposableKernel *string `json:"composable_kernel"`
	Aiter            *string `json:"aiter"`
	FBGEMM           *string `json:"fbgemm"`
	Source           *string `json:"_source"`
}

type PytorchFlags struct {
	BuildSettings Map[string]  `json:"build_settings,nullable"`
	CXXDefines    Map[*string] `json:"cxx_defines,nullable"`
	CXXFlagsRaw   *string      `json:"cxx_flags_raw"`
	CUDAFlagsRaw  *string      `json:"cuda_flags_raw"`
	GPUArchList   []string     `json:"gpu_arch_list,nullable"`
}

type BinaryIntrospection struct {
	LibtorchHIPSymbolCounts Map[*int] `json:"libtorch_hip_symbol_counts"`
	TorchLibBundled         Map[bool] `json:"torch_lib_bundled,nullable"`
	CXXFlagsUseDefines      Map[bool] `json:"cxx_flags_use_defines,nullable"`
}

type CMakeCache struct {
	SourceFile *string              `json:"_source_file"`
	Entries    Map[CMakeCacheEntry] `json:"entries,nullable"`
}

type CMakeCacheEntry struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type NinjaHIPCC struct {
	SourceFile           *string          `json:"_source_file"`
	Parser               *string          `json:"_parser"`
	LegacyScriptsScanned *int             `json:"_legacy_scripts_scanned"`
	Targets              Map[NinjaTarget] `json:"targets,nullable"`
}

type NinjaTarget struct {
	Defines             Map[*string] `json:"defines"`
	UseDefinesPresent   Map[bool]    `json:"use_defines_present"`
	CodegenFlagsPresent Map[bool]    `json:"codegen_flags_present"`
	OffloadArchs        []string     `json:"offload_archs"`
}

// PytorchSDPA is the SDPA backends torch reports enabled (context.md §13).
type PytorchSDPA struct {
	BackendsEnabled SDPABackends `json:"backends_enabled"`
}

type SDPABackends struct {
	Flash        *bool `json:"flash_sdp_enabled"`
	MemEfficient *bool `json:"mem_efficient_sdp_enabled"`
	Math         *bool `json:"math_sdp_enabled"`
	CuDNN        *bool `json:"cudnn_sdp_enabled"`
}

// Triton is the triton package (context.md §14).
type Triton struct {
	PackageVersion *string `json:"package_version"`
	Commit         *string `json:"commit"`
}

// FBGEMM is the fbgemm_gpu package and torch's FBGEMM flags (context.md §15).
type FBGEMM struct {
	PackageVersion        *string `json:"package_version"`
	Commit                *string `json:"commit"`
	PytorchUseFBGEMM      *bool   `json:"pytorch_use_fbgemm"`
	PytorchUseFBGEMMGenAI *bool   `json:"pytorch_use_fbgemm_genai"`
}

// TorchRec is the torchrec package identity (context.md §16).
type TorchRec struct {
	PackageVersion      *string `json:"package_version"`
	Commit              *string `json:"commit"`
	SourceVersion       *string `json:"source_version"`
	SourceCommit        *string `json:"source_commit"`
	DistributionVersion *string `json:"distribution_version"`
}

// Aiter is the aiter package and its HSA kernel trees (context.md §17).
type Aiter struct {
	PackageVersion  *string           `json:"package_version"`
	PackageDistName *string           `json:"package_dist_name"`
	Commit          *string           `json:"commit"`
	HSATree         Map[Map[HSAArch]] `json:"hsa_tree,nullable"`
}

type HSAArch struct {
	FileCount      *int    `json:"file_count"`
	COCount        *int    `json:"co_count"`
	CombinedSHA256 *string `json:"combined_sha256"`
}
