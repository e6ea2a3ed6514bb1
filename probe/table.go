package probe

import "aorta-probe/schema"

// probeTable is the fixed list of probes in the anchor's order (core.md
// §1.3, context.md §2). They run concurrently; this order is the order of
// partial_reasons, whatever order they finish in. A probe may await only
// probes above it.
func probeTable() []probe {
	return []probe{
		block("runtime_context", collectRuntimeContext, func(s *schema.Snapshot, v schema.RuntimeContext) { s.RuntimeContext = v }),
		block("container_detected", collectContainerDetected, func(s *schema.Snapshot, v isolation) {
			s.ContainerDetected = v.detected
			s.Provenance.Isolation = v.evidence
		}),
		block("probe_namespace", collectProbeNamespace, func(s *schema.Snapshot, v *string) { s.ProbeNamespace = v }),
		block("execution_context", collectExecutionContext, func(s *schema.Snapshot, v execContext) {
			s.ExecutionContext = v.block
			s.Provenance.Placement = v.placement
		}),
		block("system_health", collectSystemHealth, func(s *schema.Snapshot, v systemHealth) { s.SystemHealth = v.value }),
		block("therock", collectTheRock, func(s *schema.Snapshot, v theRock) { s.TheRock = v.block }),
		block("rocm", collectROCm, func(s *schema.Snapshot, v schema.ROCm) { s.ROCm = v }),
		block("amdgpu_driver", collectAMDGPUDriver, func(s *schema.Snapshot, v schema.AMDGPUDriver) { s.AMDGPUDriver = v }),
		block("hip", collectHIP, func(s *schema.Snapshot, v schema.HIP) { s.HIP = v }),
		block("hipblaslt", collectHipBLASLt, func(s *schema.Snapshot, v schema.GemmLibrary) { s.HipBLASLt = v }),
		block("rocblas", collectRocBLAS, func(s *schema.Snapshot, v schema.GemmLibrary) { s.RocBLAS = v }),
		pending("composable_kernel"),
		block("tensile", collectTensile, func(s *schema.Snapshot, v schema.Tensile) { s.Tensile = v }),
		block("tensile_catalog", collectTensileCatalog, func(s *schema.Snapshot, v schema.TensileCatalog) { s.TensileCatalog = v }),
		pending("triton"),
		pending("fbgemm"),
		pending("torchrec"),
		pending("aiter"),
		pending("aotriton"),
		block("miopen", collectMIOpen, func(s *schema.Snapshot, v schema.MIOpen) { s.MIOpen = v }),
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
		block("env_vars", collectEnvVars, func(s *schema.Snapshot, v schema.Map[*string]) { s.EnvVars = v }),
		pending("pytorch_version"),
		pending("pytorch_build"),
		pending("pytorch_sdpa"),
		block("build_system", collectBuildSystem, func(s *schema.Snapshot, v schema.BuildSystem) { s.BuildSystem = v }),
		block("buck_invocation", collectBuckInvocation, func(s *schema.Snapshot, v buckResult) {
			s.BuckInvocation = v.inv
			s.LibraryIntrospection = v.entries
			// Alternates mirror the hipblaslt and rccl blocks as this
			// document holds them (their rows come earlier in the table).
			s.LibraryIntrospectionAlternates = libraryAlternates(v.entries, s.HipBLASLt, s.RCCL)
			s.ExecutionContext.LikelyExecutionPlatform = v.platform.value
			s.Provenance.Placement.LikelyExecutionPlatform = v.platform.evidence()
		}),
	}
}

// pending is a block this build does not collect yet: it keeps its
// not-captured shape and says so in one reason.
func pending(name string) probe {
	return probe{
		name: name,
		run: func(s *state) any {
			s.reason("%s: not captured (not implemented in this aorta-probe build)", name)
			return nil
		},
		put: func(*schema.Snapshot, any) {},
	}
}
