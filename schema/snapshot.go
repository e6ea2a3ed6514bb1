// Package schema defines the env.json document of schema 1.16 (core.md §4,
// context.md §1) and writes it byte for byte as the Python probe does.
//
// Every block type has a constructor for its "not captured" shape: the
// fully-shaped, all-null value the spec gives for the disaster path. A probe
// that panics or misses the deadline leaves that shape behind, so the
// document is always complete.
package schema

// Version is the schema version this probe writes.
const Version = "1.16"

// Snapshot is the whole document: the 40 keys of schema 1.16 in the order of
// core.md §4.1 (therock last, after partial_reasons), then this probe's one
// extension block.
type Snapshot struct {
	SchemaVersion                  string             `json:"schema_version"`
	CapturedAt                     string             `json:"captured_at"`
	Host                           Host               `json:"host"`
	RuntimeContext                 RuntimeContext     `json:"runtime_context"`
	ContainerDetected              bool               `json:"container_detected"`
	ExecutionContext               ExecutionContext   `json:"execution_context"`
	ProbeNamespace                 *string            `json:"probe_namespace"`
	Docker                         *Docker            `json:"docker"`
	ROCm                           ROCm               `json:"rocm"`
	AMDGPUDriver                   AMDGPUDriver       `json:"amdgpu_driver"`
	HIP                            HIP                `json:"hip"`
	GPUArch                        GPUArch            `json:"gpu_arch"`
	NICs                           NICs               `json:"nics"`
	HipBLASLt                      GemmLibrary        `json:"hipblaslt"`
	RocBLAS                        GemmLibrary        `json:"rocblas"`
	ComposableKernel               ComposableKernel   `json:"composable_kernel"`
	Tensile                        Tensile            `json:"tensile"`
	TensileCatalog                 TensileCatalog     `json:"tensile_catalog"`
	MIOpen                         MIOpen             `json:"miopen"`
	MIOpenCatalog                  MIOpenCatalog      `json:"miopen_catalog"`
	RocFFTCatalog                  RocFFTCatalog      `json:"rocfft_catalog"`
	RCCL                           RCCL               `json:"rccl"`
	Triton                         Triton             `json:"triton"`
	FBGEMM                         FBGEMM             `json:"fbgemm"`
	TorchRec                       TorchRec           `json:"torchrec"`
	Aiter                          Aiter              `json:"aiter"`
	AOTriton                       AOTriton           `json:"aotriton"`
	BuildSystem                    BuildSystem        `json:"build_system"`
	BuckInvocation                 BuckInvocation     `json:"buck_invocation"`
	LibraryIntrospection           []LibraryEntry     `json:"library_introspection"`
	LibraryIntrospectionAlternates []LibraryAlternate `json:"library_introspection_alternates"`
	PythonVersion                  string             `json:"python_version"`
	PytorchVersion                 *string            `json:"pytorch_version"`
	PytorchBuild                   PytorchBuild       `json:"pytorch_build"`
	PytorchSDPA                    PytorchSDPA        `json:"pytorch_sdpa"`
	EnvVars                        Map[*string]       `json:"env_vars"`
	SystemHealth                   Any                `json:"system_health"`
	Partial                        bool               `json:"partial"`
	PartialReasons                 []string           `json:"partial_reasons"`
	TheRock                        TheRock            `json:"therock"`

	// Provenance is this probe's extension (architecture.md §2.5); nil
	// with --no-provenance.
	Provenance *Provenance `json:"probe_provenance,omitnil"`
}

// NotCaptured returns a document in which every block has its not-captured
// shape and nothing was observed.
func NotCaptured() *Snapshot {
	return &Snapshot{
		SchemaVersion:    Version,
		RuntimeContext:   NotCapturedRuntimeContext(),
		ExecutionContext: ExecutionContext{ProbeInvocation: "direct"},
		ROCm:             ROCm{Root: "/opt/rocm", LibRoot: "/opt/rocm", RootSource: "none", Layout: "classic"},
		AMDGPUDriver:     NotCapturedAMDGPUDriver(),
		NICs:             NotCapturedNICs(),
		HipBLASLt:        NotCapturedGemmLibrary(),
		RocBLAS:          NotCapturedGemmLibrary(),
		TensileCatalog:   NotCapturedTensileCatalog(),
		MIOpenCatalog:    NotCapturedMIOpenCatalog(),
		RocFFTCatalog:    NotCapturedRocFFTCatalog(),
		RCCL:             RCCL{NetPluginMode: "unknown"},
		BuildSystem:      BuildSystem{Kind: "none"},
		BuckInvocation:   NotRequestedBuckInvocation(),
		PytorchBuild:     NotCapturedPytorchBuild(),
		EnvVars:          Map[*string]{},
		PartialReasons:   []string{},
		TheRock:          TheRock{Status: "absent", Submodules: []TheRockSubmodule{}},
	}
}
