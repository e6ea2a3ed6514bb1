// Package schema defines the env.json document of schema 1.16 (field
// references: docs/fields-process.md, docs/hardware.md,
// docs/rocm-libraries.md, docs/python.md, docs/buck2.md; published as JSON
// Schema in docs/schema.md) and writes it byte for byte as the Python probe
// does.
//
// Every block type has a constructor for its "not captured" shape: the
// fully-shaped, all-null value of the Python probe's disaster path
// (docs/fields-process.md#the-not-captured-document). A probe
// that panics or misses the deadline leaves that shape behind, so the
// document is always complete.
package schema

import "aorta-probe/internal/pyjson"

// Version is the schema version this probe writes.
const Version = "1.16"

// Snapshot is the whole document: the 40 keys of schema 1.16 in the aorta
// key order (therock right after rocm, as the newest 1.16 revision writes
// it; docs/schema.md#key-order-part-of-the-contract-at-the-top-level-only),
// then this probe's one extension block.
type Snapshot struct {
	// Always 1.16 from this writer; older documents carry 1.0 to 1.15.
	SchemaVersion string `py:"schema_version"`
	// UTC time the document was assembled, YYYY-MM-DDTHH:MM:SSZ (microseconds
	// truncated); "" if even that failed.
	CapturedAt string `py:"captured_at"`
	// Kernel and libc the probe ran on.
	Host Host `py:"host"`
	// Container runtime and Python environment kind.
	RuntimeContext RuntimeContext `py:"runtime_context"`
	// True when any isolation signal fired (container runtime, marker file,
	// mount namespace differs from PID 1, container cgroup); false is no
	// signal, not proof of bare metal.
	ContainerDetected bool `py:"container_detected"`
	// Where the caller says the probe runs, and the advisory Buck execution
	// platform.
	ExecutionContext ExecutionContext `py:"execution_context"`
	// Salted hash of the mount (else cgroup) namespace handle: mnt:,
	// mnt-local:, cgroup-ns: or cgroup-ns-local: and 16 hex digits; null
	// when neither is readable.
	ProbeNamespace *string `py:"probe_namespace"`
	// Launcher-declared image and cgroup container id; null when
	// runtime_context.type is baremetal.
	Docker *Docker `py:"docker"`
	// ROCm userspace on the filesystem: version, roots and layout.
	ROCm ROCm `py:"rocm"`
	// The TheRock build manifest, when the install has one.
	TheRock TheRock `py:"therock"`
	// amdgpu kernel driver: package, module and KFD nodes.
	AMDGPUDriver AMDGPUDriver `py:"amdgpu_driver"`
	// What hipconfig on PATH reports.
	HIP HIP `py:"hip"`
	// GPU agents rocm_agent_enumerator lists.
	GPUArch GPUArch `py:"gpu_arch"`
	// Presence and identity of the RDMA NIC families ainic, broadcom and cx7,
	// in that order.
	NICs NICs `py:"nics"`
	// hipBLASLt identity.
	HipBLASLt GemmLibrary `py:"hipblaslt"`
	// rocBLAS identity.
	RocBLAS GemmLibrary `py:"rocblas"`
	// System CK headers and the CK inside PyTorch.
	ComposableKernel ComposableKernel `py:"composable_kernel"`
	// Tensile package and the combined kernel-DB filename fingerprint.
	Tensile Tensile `py:"tensile"`
	// Installed Tensile solution menus of hipBLASLt and rocBLAS.
	TensileCatalog TensileCatalog `py:"tensile_catalog"`
	// MIOpen identity.
	MIOpen MIOpen `py:"miopen"`
	// Installed MIOpen databases.
	MIOpenCatalog MIOpenCatalog `py:"miopen_catalog"`
	// rocFFT's optional system kernel cache.
	RocFFTCatalog RocFFTCatalog `py:"rocfft_catalog"`
	// RCCL identity and its network plugin.
	RCCL RCCL `py:"rccl"`
	// The triton package the workload interpreter imports.
	Triton Triton `py:"triton"`
	// fbgemm_gpu and torch's FBGEMM flags.
	FBGEMM FBGEMM `py:"fbgemm"`
	// torchrec identity (never imported).
	TorchRec TorchRec `py:"torchrec"`
	// aiter package and its HSA kernel trees.
	Aiter Aiter `py:"aiter"`
	// AOTriton bundled with PyTorch.
	AOTriton AOTriton `py:"aotriton"`
	// The Buck2 checkout the probe ran in, or kind none.
	BuildSystem BuildSystem `py:"build_system"`
	// The Buck context a --buck-target was resolved in; config values are
	// never stored.
	BuckInvocation BuckInvocation `py:"buck_invocation"`
	// Known libraries among the --buck-target's deps, first label per library.
	LibraryIntrospection []LibraryEntry `py:"library_introspection"`
	// Package-side identity of the Buck-provided libraries hipblaslt, rocblas,
	// miopen, rccl.
	LibraryIntrospectionAlternates []LibraryAlternate `py:"library_introspection_alternates"`
	// platform.python_version() of the workload interpreter; "" when unknown.
	PythonVersion string `py:"python_version"`
	// torch.__version__ as a string, or null when torch is not importable.
	PytorchVersion *string `py:"pytorch_version"`
	// How the workload's PyTorch was built.
	PytorchBuild PytorchBuild `py:"pytorch_build"`
	// SDPA backends torch reports enabled.
	PytorchSDPA PytorchSDPA `py:"pytorch_sdpa"`
	// The canonical knob registry (137 names in registry order) with each
	// value, or null when unset.
	EnvVars pyjson.Map[*string] `py:"env_vars"`
	// rdhc's JSON output verbatim (normally an object), or null.
	SystemHealth pyjson.Any `py:"system_health"`
	// True when partial_reasons is not empty.
	Partial bool `py:"partial"`
	// Why each missing value is missing, in probe order, in the spec's
	// wording.
	PartialReasons []string `py:"partial_reasons"`

	// Provenance is this probe's extension
	// (docs/fields-process.md#probe_provenance-this-probes-extension); nil
	// with --no-provenance.
	Provenance *Provenance `py:"probe_provenance,omitnil"`
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
		EnvVars:          pyjson.Map[*string]{},
		PartialReasons:   []string{},
		TheRock:          TheRock{Status: "absent", Submodules: []TheRockSubmodule{}},
	}
}
