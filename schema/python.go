package schema

// PytorchBuild is how the workload's PyTorch was built (context.md §12).
//
// Scope: process (the torch the workload interpreter imports, as the probe's
// Python helper reports it) plus the files of that torch and its source tree.
type PytorchBuild struct {
	// Source: torch.version.git_version (truthy, else null).
	GitCommit *string `json:"git_commit"`
	// Source: torch.version.hip (truthy, else null).
	HIPVersion *string `json:"hip_version"`
	// Source: torch.version.cuda (truthy, else null).
	CUDAVersion *string `json:"cuda_version"`
	// Source: torch.version.debug, raw.
	Debug Any `json:"debug"`
	// Source: $AORTA_PYTORCH_SRC, torch.__file__, the torch dist-info's
	// direct_url.json, .git + third_party/ around torch.
	InstallKind string  `json:"install_kind"` // source | editable | wheel | unknown
	SourcePath  *string `json:"source_path"`
	// Source: git -C <source>/third_party/<name> rev-parse HEAD.
	SubmoduleCommits SubmoduleCommits `json:"submodule_commits"`
	// Source: torch.__config__.show(), torch.cuda.get_arch_list().
	Flags PytorchFlags `json:"flags"`
	// Source: projection of Flags (17 canonical names).
	BuildFlags Map[Any] `json:"build_flags"`
	// Source: nm -D --defined-only | c++filt of libtorch_hip.so, torch's
	// lib dir listing, CXX_FLAGS.
	BinaryIntrospection BinaryIntrospection `json:"binary_introspection"`
	// Source: <source>/build/CMakeCache.txt (allowlisted names).
	CMakeCache CMakeCache `json:"cmake_cache"`
	// Source: <source>/build/build.ninja, else FindHIP *.hip.o.cmake scripts.
	NinjaHIPCC NinjaHIPCC `json:"ninja_hipcc"`
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
// Source: torch.backends.cuda.{flash,mem_efficient,math,cudnn}_sdp_enabled().
// Scope: process.
type PytorchSDPA struct {
	BackendsEnabled SDPABackends `json:"backends_enabled"`
}

type SDPABackends struct {
	Flash        *bool `json:"flash_sdp_enabled"`
	MemEfficient *bool `json:"mem_efficient_sdp_enabled"`
	Math         *bool `json:"math_sdp_enabled"`
	CuDNN        *bool `json:"cudnn_sdp_enabled"`
}

// Triton is the triton package (context.md §14). Source: `import triton`
// in the workload interpreter: str(__version__); the commit from the version
// or __git_version__/git_version/__commit__/__sha__/version.git_version.
// Scope: process.
type Triton struct {
	PackageVersion *string `json:"package_version"`
	Commit         *string `json:"commit"`
}

// FBGEMM is the fbgemm_gpu package and torch's FBGEMM flags (context.md §15).
// Source: `import fbgemm_gpu`; -DUSE_FBGEMM / -DUSE_FBGEMM_GENAI in
// torch.__config__.show(). Scope: process.
type FBGEMM struct {
	PackageVersion        *string `json:"package_version"`
	Commit                *string `json:"commit"`
	PytorchUseFBGEMM      *bool   `json:"pytorch_use_fbgemm"`
	PytorchUseFBGEMMGenAI *bool   `json:"pytorch_use_fbgemm_genai"`
}

// TorchRec is the torchrec package identity (context.md §16). Source:
// find_spec("torchrec") (never imported), its version.py, importlib.metadata
// distributions, RECORD and direct_url.json. Scope: process.
type TorchRec struct {
	PackageVersion      *string `json:"package_version"`
	Commit              *string `json:"commit"`
	SourceVersion       *string `json:"source_version"`
	SourceCommit        *string `json:"source_commit"`
	DistributionVersion *string `json:"distribution_version"`
}

// Aiter is the aiter package and its HSA kernel trees (context.md §17).
// Source: `import aiter` (__version__, aiter._version), metadata of the
// dists amd_aiter and aiter; HSATree: the aiter_meta/hsa trees listed and
// hashed on the filesystem. Scope: process + filesystem.
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
