package probe

import (
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// The blocks other probes await, by key: await(s, theRockBlock) is a
// theRock, whatever the row computes is checked against the key.
const (
	theRockBlock          blockKey[theRock]            = "therock"
	hipBLASLtBlock        blockKey[schema.GemmLibrary] = "hipblaslt"
	rocBLASBlock          blockKey[schema.GemmLibrary] = "rocblas"
	composableKernelBlock blockKey[composableKernel]   = "composable_kernel"
	tensileBlock          blockKey[schema.Tensile]     = "tensile"
	miopenBlock           blockKey[schema.MIOpen]      = "miopen"
	buildSystemBlock      blockKey[schema.BuildSystem] = "build_system"
)

// probeTable is the fixed list of probes in the Python probe's order
// (docs/fields-process.md#probe-order). They run concurrently; this order is
// the order of partial_reasons, whatever order they finish in. A probe may
// await only probes above it.
func probeTable() []probe {
	return []probe{
		block("runtime_context", collectRuntimeContext, func(s *schema.Snapshot, v schema.RuntimeContext) { s.RuntimeContext = v }),
		block("container_detected", collectContainerDetected, func(s *schema.Snapshot, v isolation) {
			s.ContainerDetected = v.detected
			s.Provenance.Isolation = v.evidence
		}),
		block("probe_namespace", collectProbeNamespace, func(s *schema.Snapshot, v placeIdentity) {
			s.ProbeNamespace = v.namespace
			s.Provenance.Identity = v.identity
		}),
		block("execution_context", collectExecutionContext, func(s *schema.Snapshot, v execContext) {
			s.ExecutionContext = v.block
			s.Provenance.Placement = v.placement
		}),
		block("system_health", collectSystemHealth, func(s *schema.Snapshot, v systemHealth) { s.SystemHealth = v.value }),
		block(theRockBlock, collectTheRock, func(s *schema.Snapshot, v theRock) { s.TheRock = v.block }).rootsWhenMissing(fillTheRockRoots),
		block("rocm", collectROCm, func(s *schema.Snapshot, v schema.ROCm) { s.ROCm = v }).rootsWhenMissing(fillROCmRoots),
		block("amdgpu_driver", collectAMDGPUDriver, func(s *schema.Snapshot, v schema.AMDGPUDriver) { s.AMDGPUDriver = v }),
		block("hip", collectHIP, func(s *schema.Snapshot, v schema.HIP) { s.HIP = v }),
		block(hipBLASLtBlock, collectHipBLASLt, func(s *schema.Snapshot, v schema.GemmLibrary) { s.HipBLASLt = v }),
		block(rocBLASBlock, collectRocBLAS, func(s *schema.Snapshot, v schema.GemmLibrary) { s.RocBLAS = v }),
		block(composableKernelBlock, collectComposableKernel, func(s *schema.Snapshot, v composableKernel) { s.ComposableKernel = v.block }),
		block(tensileBlock, collectTensile, func(s *schema.Snapshot, v schema.Tensile) { s.Tensile = v }),
		block("tensile_catalog", collectTensileCatalog, func(s *schema.Snapshot, v schema.TensileCatalog) { s.TensileCatalog = v }),
		block("triton", collectTriton, func(s *schema.Snapshot, v schema.Triton) { s.Triton = v }),
		block("fbgemm", collectFBGEMM, func(s *schema.Snapshot, v schema.FBGEMM) { s.FBGEMM = v }),
		block("torchrec", collectTorchRec, func(s *schema.Snapshot, v schema.TorchRec) { s.TorchRec = v }),
		block("aiter", collectAiter, func(s *schema.Snapshot, v schema.Aiter) { s.Aiter = v }),
		block("aotriton", collectAOTriton, func(s *schema.Snapshot, v schema.AOTriton) { s.AOTriton = v }),
		block(miopenBlock, collectMIOpen, func(s *schema.Snapshot, v schema.MIOpen) { s.MIOpen = v }),
		block("miopen_catalog", collectMIOpenCatalog, func(s *schema.Snapshot, v schema.MIOpenCatalog) { s.MIOpenCatalog = v }),
		block("rocfft_catalog", collectRocFFTCatalog, func(s *schema.Snapshot, v schema.RocFFTCatalog) { s.RocFFTCatalog = v }),
		block("rccl", collectRCCL, func(s *schema.Snapshot, v schema.RCCL) { s.RCCL = v }),
		block("nics", collectNICs, func(s *schema.Snapshot, v schema.NICs) { s.NICs = v }),
		block("gpu_arch", collectGPUArch, func(s *schema.Snapshot, v schema.GPUArch) { s.GPUArch = v }),
		block("host", collectHost, func(s *schema.Snapshot, v hostInfo) {
			s.Host = v.host
			s.Provenance.OSRelease = v.os
		}),
		block("docker", collectDocker, func(s *schema.Snapshot, v *schema.Docker) { s.Docker = v }),
		block("env_vars", collectEnvVars, func(s *schema.Snapshot, v pyjson.Map[*string]) { s.EnvVars = v }),
		block("pytorch_version", collectPytorchVersion, func(s *schema.Snapshot, v *string) { s.PytorchVersion = v }),
		block("pytorch_build", collectPytorchBuild, func(s *schema.Snapshot, v schema.PytorchBuild) { s.PytorchBuild = v }),
		block("pytorch_sdpa", collectPytorchSDPA, func(s *schema.Snapshot, v schema.PytorchSDPA) { s.PytorchSDPA = v }),
		block(buildSystemBlock, collectBuildSystem, func(s *schema.Snapshot, v schema.BuildSystem) { s.BuildSystem = v }),
		block("buck_invocation", collectBuckInvocation, func(s *schema.Snapshot, v buckResult) {
			s.BuckInvocation = v.inv
			s.LibraryIntrospection = v.entries
			// Alternates mirror the hipblaslt and rccl blocks as this
			// document holds them (their rows come earlier in the table).
			s.LibraryIntrospectionAlternates = libraryAlternates(v.entries, s.HipBLASLt, s.RCCL)
			s.ExecutionContext.LikelyExecutionPlatform = v.platform.value
			s.Provenance.Placement.LikelyExecutionPlatform = v.platform.evidence()
		}),
		// python_version is taken when the snapshot is assembled
		// (docs/fields-process.md#probe-order); its row also carries the
		// Python bridge's own reason.
		block("python_version", collectPythonVersion, func(s *schema.Snapshot, v pythonVersion) { s.PythonVersion = v.version }),

		// The blocks of probe_provenance alone (schedule.go's row kinds),
		// named as a capture's cut names them.
		beside(block(gpusBlock, readGPUs, func(s *schema.Snapshot, v schema.GPUs) { s.Provenance.GPUs = &v }), unfinishedGPUs),
		beside(block(tuningBlock, readTuning, func(s *schema.Snapshot, v schema.Tuning) { s.Provenance.Tuning = &v }), unfinishedTuning),
		block(rocmInstallsBlock, readROCmInstalls, func(s *schema.Snapshot, v schema.ROCmInstalls) { s.Provenance.ROCmInstalls = &v }).last(),
	}
}

// rocmInstallsBlock names the rocm_installs row.
const rocmInstallsBlock = "probe_provenance.rocm_installs"

// readGPUs is the gpus row: the block read beside the probes
// (collector.gpuReader), awaited until the collection ends; past it the
// row is interrupted, and gatherBeside stores unfinishedGPUs instead.
func readGPUs(s *state) schema.GPUs {
	g, done := awaitGPUs(s.ctx, s.gpuReader(gpusWorkers(s.opt)).gpus)
	if !done {
		s.interrupted.Store(true)
	}
	return g
}

// readROCmInstalls is the rocm_installs row, which reads the document
// (lastRow).
func readROCmInstalls(s *state) schema.ROCmInstalls { return collectROCmInstalls(s.collector, s.doc) }
