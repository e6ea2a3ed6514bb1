package schema

import "aorta-probe/internal/pyjson"

// PytorchBuild is how the workload's PyTorch was built
// (docs/python.md#4-field-reference-python-side-blocks).
//
// Scope: process (the torch the workload interpreter imports, as the probe's
// Python helper reports it) plus the files of that torch and its source tree.
type PytorchBuild struct {
	// Source: torch.version.git_version (truthy, else null).
	GitCommit *string `py:"git_commit"`
	// Source: torch.version.hip (truthy, else null).
	HIPVersion *string `py:"hip_version"`
	// Source: torch.version.cuda (truthy, else null).
	CUDAVersion *string `py:"cuda_version"`
	// Source: torch.version.debug, raw.
	Debug pyjson.Any `py:"debug"`
	// Source: $AORTA_PYTORCH_SRC, torch.__file__, the torch dist-info's
	// direct_url.json, .git + third_party/ around torch.
	InstallKind string `py:"install_kind"` // source | editable | wheel | unknown
	// The source or editable tree, resolved; null for wheel and unknown.
	SourcePath *string `py:"source_path"`
	// Source: git -C <source>/third_party/<name> rev-parse HEAD.
	SubmoduleCommits SubmoduleCommits `py:"submodule_commits"`
	// Source: torch.__config__.show(), torch.cuda.get_arch_list().
	Flags PytorchFlags `py:"flags"`
	// Source: projection of Flags (17 canonical names).
	BuildFlags pyjson.Map[pyjson.Any] `py:"build_flags"`
	// Source: nm -D --defined-only | c++filt of libtorch_hip.so, torch's
	// lib dir listing, CXX_FLAGS.
	BinaryIntrospection BinaryIntrospection `py:"binary_introspection"`
	// Source: <source>/build/CMakeCache.txt (allowlisted names).
	CMakeCache CMakeCache `py:"cmake_cache"`
	// Source: <source>/build/build.ninja, else FindHIP *.hip.o.cmake scripts.
	NinjaHIPCC NinjaHIPCC `py:"ninja_hipcc"`
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

// NotCapturedPytorchBuild is the not-captured shape
// (docs/fields-process.md#the-not-captured-document).
func NotCapturedPytorchBuild() PytorchBuild {
	flags := pyjson.Map[pyjson.Any]{}
	for _, n := range BuildFlagNames {
		flags = append(flags, pyjson.Entry[pyjson.Any]{Key: n})
	}
	counts := pyjson.Map[*int]{}
	for _, m := range SymbolMarkers {
		counts = append(counts, pyjson.Entry[*int]{Key: m})
	}
	return PytorchBuild{
		InstallKind:         "unknown",
		BuildFlags:          flags,
		BinaryIntrospection: BinaryIntrospection{LibtorchHIPSymbolCounts: counts},
	}
}

type SubmoduleCommits struct {
	// git rev-parse HEAD of third_party/composable_kernel.
	ComposableKernel *string `py:"composable_kernel"`
	Aiter            *string `py:"aiter"`   // git rev-parse HEAD of third_party/aiter.
	FBGEMM           *string `py:"fbgemm"`  // git rev-parse HEAD of third_party/fbgemm.
	Source           *string `py:"_source"` // git when at least one SHA was read.
}

type PytorchFlags struct {
	// KEY=VALUE pairs after 'Build settings:' of torch.__config__.show().
	BuildSettings pyjson.Map[string]  `py:"build_settings,nullable"`
	CXXDefines    pyjson.Map[*string] `py:"cxx_defines,nullable"`   // -D defines of CXX_FLAGS, value or null.
	CXXFlagsRaw   *string             `py:"cxx_flags_raw"`          // The CXX_FLAGS build setting verbatim.
	CUDAFlagsRaw  *string             `py:"cuda_flags_raw"`         // The CUDA_FLAGS build setting verbatim.
	GPUArchList   []string            `py:"gpu_arch_list,nullable"` // torch.cuda.get_arch_list().
}

type BinaryIntrospection struct {
	// Per marker, demangled libtorch_hip.so symbols containing it; null
	// without a dump.
	LibtorchHIPSymbolCounts pyjson.Map[*int] `py:"libtorch_hip_symbol_counts"`
	// {"libaotriton_v2.so": bool} for torch's native lib dir.
	TorchLibBundled pyjson.Map[bool] `py:"torch_lib_bundled,nullable"`
	// USE_ROCM_CK_SDPA and USE_ROCM_CK_GEMM present as -D in CXX_FLAGS.
	CXXFlagsUseDefines pyjson.Map[bool] `py:"cxx_flags_use_defines,nullable"`
}

type CMakeCache struct {
	SourceFile *string `py:"_source_file"` // Path of <source>/build/CMakeCache.txt.
	// Allowlisted NAME:TYPE=VALUE entries, sorted by NAME.
	Entries pyjson.Map[CMakeCacheEntry] `py:"entries,nullable"`
}

type CMakeCacheEntry struct {
	Type  string `py:"type"`  // The cache entry type, e.g. BOOL or STRING.
	Value string `py:"value"` // The value verbatim.
}

type NinjaHIPCC struct {
	// Path of <source>/build/build.ninja.
	SourceFile *string `py:"_source_file"`
	Parser     *string `py:"_parser"` // Which parser produced targets.
	// FindHIP scripts read by the legacy parser.
	LegacyScriptsScanned *int `py:"_legacy_scripts_scanned"`
	// torch_hip, torch_cpu, c10_hip, ck_sdpa, mslk when found.
	Targets pyjson.Map[NinjaTarget] `py:"targets,nullable"`
}

type NinjaTarget struct {
	// DEFINES of the target's HIP compile edges, sorted by name.
	Defines           pyjson.Map[*string] `py:"defines"`
	UseDefinesPresent pyjson.Map[bool]    `py:"use_defines_present"` // Which USE_* defines are present.
	// Which code-generation flags are present.
	CodegenFlagsPresent pyjson.Map[bool] `py:"codegen_flags_present"`
	OffloadArchs        []string         `py:"offload_archs"` // --offload-arch values.
}

// PytorchSDPA is the SDPA backends torch reports enabled
// (docs/python.md#4-field-reference-python-side-blocks). Source:
// torch.backends.cuda.{flash,mem_efficient,math,cudnn}_sdp_enabled(). Scope:
// process.
type PytorchSDPA struct {
	// The four torch.backends.cuda.*_sdp_enabled() answers.
	BackendsEnabled SDPABackends `py:"backends_enabled"`
}

type SDPABackends struct {
	Flash        *bool `py:"flash_sdp_enabled"`         // torch.backends.cuda.flash_sdp_enabled().
	MemEfficient *bool `py:"mem_efficient_sdp_enabled"` // torch.backends.cuda.mem_efficient_sdp_enabled().
	Math         *bool `py:"math_sdp_enabled"`          // torch.backends.cuda.math_sdp_enabled().
	CuDNN        *bool `py:"cudnn_sdp_enabled"`         // torch.backends.cuda.cudnn_sdp_enabled().
}

// Triton is the triton package
// (docs/python.md#4-field-reference-python-side-blocks). Source:
// `import triton` in the workload interpreter: str(__version__); the commit
// from the version or
// __git_version__/git_version/__commit__/__sha__/version.git_version.
// Scope: process.
type Triton struct {
	PackageVersion *string `py:"package_version"` // str(triton.__version__).
	// Commit from the version or the package's git attributes.
	Commit *string `py:"commit"`
}

// FBGEMM is the fbgemm_gpu package and torch's FBGEMM flags
// (docs/python.md#4-field-reference-python-side-blocks). Source: `import
// fbgemm_gpu`; -DUSE_FBGEMM / -DUSE_FBGEMM_GENAI in torch.__config__.show().
// Scope: process.
type FBGEMM struct {
	PackageVersion *string `py:"package_version"` // fbgemm_gpu.__version__.
	// Commit from the version or the package's git attributes.
	Commit *string `py:"commit"`
	// -DUSE_FBGEMM in torch.__config__.show().
	PytorchUseFBGEMM *bool `py:"pytorch_use_fbgemm"`
	// -DUSE_FBGEMM_GENAI in torch.__config__.show().
	PytorchUseFBGEMMGenAI *bool `py:"pytorch_use_fbgemm_genai"`
}

// TorchRec is the torchrec package identity
// (docs/python.md#4-field-reference-python-side-blocks). Source:
// find_spec("torchrec") (never imported), its version.py, importlib.metadata
// distributions, RECORD and direct_url.json. Scope: process.
type TorchRec struct {
	// The identity version chosen from the sources below.
	PackageVersion *string `py:"package_version"`
	Commit         *string `py:"commit"`         // Commit extracted from package_version.
	SourceVersion  *string `py:"source_version"` // version.py of the package found by find_spec.
	SourceCommit   *string `py:"source_commit"`  // Commit of source_version.
	// importlib.metadata version of the torchrec distribution.
	DistributionVersion *string `py:"distribution_version"`
}

// Aiter is the aiter package and its HSA kernel trees
// (docs/python.md#4-field-reference-python-side-blocks). Source: `import
// aiter` (__version__, aiter._version), metadata of the dists amd_aiter and
// aiter; HSATree: the aiter_meta/hsa trees listed and hashed on the
// filesystem. Scope: process + filesystem.
type Aiter struct {
	// aiter.__version__, else aiter._version, else dist metadata.
	PackageVersion  *string `py:"package_version"`
	PackageDistName *string `py:"package_dist_name"` // The distribution whose metadata was found.
	Commit          *string `py:"commit"`            // Commit extracted from package_version.
	// Per aiter_meta/hsa root, per arch dir, the file counts and combined
	// hash; null without a root.
	HSATree pyjson.Map[pyjson.Map[HSAArch]] `py:"hsa_tree,nullable"`
}

type HSAArch struct {
	FileCount *int `py:"file_count"` // Regular files below the arch dir.
	COCount   *int `py:"co_count"`   // Of them, files with suffix .co.
	// Combined hash of the files' relative paths and contents.
	CombinedSHA256 *string `py:"combined_sha256"`
}
