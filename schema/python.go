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
	InstallKind string `json:"install_kind"` // source | editable | wheel | unknown
	// The source or editable tree, resolved; null for wheel and unknown.
	SourcePath *string `json:"source_path"`
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
	// git rev-parse HEAD of third_party/composable_kernel.
	ComposableKernel *string `json:"composable_kernel"`
	Aiter            *string `json:"aiter"`   // git rev-parse HEAD of third_party/aiter.
	FBGEMM           *string `json:"fbgemm"`  // git rev-parse HEAD of third_party/fbgemm.
	Source           *string `json:"_source"` // git when at least one SHA was read.
}

type PytorchFlags struct {
	// KEY=VALUE pairs after 'Build settings:' of torch.__config__.show().
	BuildSettings Map[string]  `json:"build_settings,nullable"`
	CXXDefines    Map[*string] `json:"cxx_defines,nullable"`   // -D defines of CXX_FLAGS, value or null.
	CXXFlagsRaw   *string      `json:"cxx_flags_raw"`          // The CXX_FLAGS build setting verbatim.
	CUDAFlagsRaw  *string      `json:"cuda_flags_raw"`         // The CUDA_FLAGS build setting verbatim.
	GPUArchList   []string     `json:"gpu_arch_list,nullable"` // torch.cuda.get_arch_list().
}

type BinaryIntrospection struct {
	// Per marker, demangled libtorch_hip.so symbols containing it; null
	// without a dump.
	LibtorchHIPSymbolCounts Map[*int] `json:"libtorch_hip_symbol_counts"`
	// {"libaotriton_v2.so": bool} for torch's native lib dir.
	TorchLibBundled Map[bool] `json:"torch_lib_bundled,nullable"`
	// USE_ROCM_CK_SDPA and USE_ROCM_CK_GEMM present as -D in CXX_FLAGS.
	CXXFlagsUseDefines Map[bool] `json:"cxx_flags_use_defines,nullable"`
}

type CMakeCache struct {
	SourceFile *string `json:"_source_file"` // Path of <source>/build/CMakeCache.txt.
	// Allowlisted NAME:TYPE=VALUE entries, sorted by NAME.
	Entries Map[CMakeCacheEntry] `json:"entries,nullable"`
}

type CMakeCacheEntry struct {
	Type  string `json:"type"`  // The cache entry type, e.g. BOOL or STRING.
	Value string `json:"value"` // The value verbatim.
}

type NinjaHIPCC struct {
	// Path of <source>/build/build.ninja.
	SourceFile *string `json:"_source_file"`
	Parser     *string `json:"_parser"` // Which parser produced targets.
	// FindHIP scripts read by the legacy parser.
	LegacyScriptsScanned *int `json:"_legacy_scripts_scanned"`
	// torch_hip, torch_cpu, c10_hip, ck_sdpa, mslk when found.
	Targets Map[NinjaTarget] `json:"targets,nullable"`
}

type NinjaTarget struct {
	// DEFINES of the target's HIP compile edges, sorted by name.
	Defines           Map[*string] `json:"defines"`
	UseDefinesPresent Map[bool]    `json:"use_defines_present"` // Which USE_* defines are present.
	// Which code-generation flags are present.
	CodegenFlagsPresent Map[bool] `json:"codegen_flags_present"`
	OffloadArchs        []string  `json:"offload_archs"` // --offload-arch values.
}

// PytorchSDPA is the SDPA backends torch reports enabled (context.md §13).
// Source: torch.backends.cuda.{flash,mem_efficient,math,cudnn}_sdp_enabled().
// Scope: process.
type PytorchSDPA struct {
	// The four torch.backends.cuda.*_sdp_enabled() answers.
	BackendsEnabled SDPABackends `json:"backends_enabled"`
}

type SDPABackends struct {
	Flash        *bool `json:"flash_sdp_enabled"`         // torch.backends.cuda.flash_sdp_enabled().
	MemEfficient *bool `json:"mem_efficient_sdp_enabled"` // torch.backends.cuda.mem_efficient_sdp_enabled().
	Math         *bool `json:"math_sdp_enabled"`          // torch.backends.cuda.math_sdp_enabled().
	CuDNN        *bool `json:"cudnn_sdp_enabled"`         // torch.backends.cuda.cudnn_sdp_enabled().
}

// Triton is the triton package (context.md §14). Source: `import triton`
// in the workload interpreter: str(__version__); the commit from the version
// or __git_version__/git_version/__commit__/__sha__/version.git_version.
// Scope: process.
type Triton struct {
	PackageVersion *string `json:"package_version"` // str(triton.__version__).
	// Commit from the version or the package's git attributes.
	Commit *string `json:"commit"`
}

// FBGEMM is the fbgemm_gpu package and torch's FBGEMM flags (context.md §15).
// Source: `import fbgemm_gpu`; -DUSE_FBGEMM / -DUSE_FBGEMM_GENAI in
// torch.__config__.show(). Scope: process.
type FBGEMM struct {
	PackageVersion *string `json:"package_version"` // fbgemm_gpu.__version__.
	// Commit from the version or the package's git attributes.
	Commit *string `json:"commit"`
	// -DUSE_FBGEMM in torch.__config__.show().
	PytorchUseFBGEMM *bool `json:"pytorch_use_fbgemm"`
	// -DUSE_FBGEMM_GENAI in torch.__config__.show().
	PytorchUseFBGEMMGenAI *bool `json:"pytorch_use_fbgemm_genai"`
}

// TorchRec is the torchrec package identity (context.md §16). Source:
// find_spec("torchrec") (never imported), its version.py, importlib.metadata
// distributions, RECORD and direct_url.json. Scope: process.
type TorchRec struct {
	// The identity version chosen from the sources below.
	PackageVersion *string `json:"package_version"`
	Commit         *string `json:"commit"`         // Commit extracted from package_version.
	SourceVersion  *string `json:"source_version"` // version.py of the package found by find_spec.
	SourceCommit   *string `json:"source_commit"`  // Commit of source_version.
	// importlib.metadata version of the torchrec distribution.
	DistributionVersion *string `json:"distribution_version"`
}

// Aiter is the aiter package and its HSA kernel trees (context.md §17).
// Source: `import aiter` (__version__, aiter._version), metadata of the
// dists amd_aiter and aiter; HSATree: the aiter_meta/hsa trees listed and
// hashed on the filesystem. Scope: process + filesystem.
type Aiter struct {
	// aiter.__version__, else aiter._version, else dist metadata.
	PackageVersion  *string `json:"package_version"`
	PackageDistName *string `json:"package_dist_name"` // The distribution whose metadata was found.
	Commit          *string `json:"commit"`            // Commit extracted from package_version.
	// Per aiter_meta/hsa root, per arch dir, the file counts and combined
	// hash; null without a root.
	HSATree Map[Map[HSAArch]] `json:"hsa_tree,nullable"`
}

type HSAArch struct {
	FileCount *int `json:"file_count"` // Regular files below the arch dir.
	COCount   *int `json:"co_count"`   // Of them, files with suffix .co.
	// Combined hash of the files' relative paths and contents.
	CombinedSHA256 *string `json:"combined_sha256"`
}
