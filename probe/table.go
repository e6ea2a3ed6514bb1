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
		block("execution_context", collectExecutionContext, func(s *schema.Snapshot, v schema.ExecutionContext) { s.ExecutionContext = v }),
		pending("system_health"),
		block("therock", collectTheRock, func(s *schema.Snapshot, v theRock) { s.TheRock = v.block }),
		block("rocm", collectROCm, func(s *schema.Snapshot, v schema.ROCm) { s.ROCm = v }),
		block("amdgpu_driver", collectAMDGPUDriver, func(s *schema.Snapshot, v schema.AMDGPUDriver) { s.AMDGPUDriver = v }),
		pending("hip"),
		pending("hipblaslt"),
		pending("rocblas"),
		block("composable_kernel", collectComposableKernel, func(s *schema.Snapshot, v composableKernel) { s.ComposableKernel = v.block }),
		pending("tensile"),
		pending("tensile_catalog"),
		block("triton", collectTriton, func(s *schema.Snapshot, v schema.Triton) { s.Triton = v }),
		block("fbgemm", collectFBGEMM, func(s *schema.Snapshot, v schema.FBGEMM) { s.FBGEMM = v }),
		block("torchrec", collectTorchRec, func(s *schema.Snapshot, v schema.TorchRec) { s.TorchRec = v }),
		block("aiter", collectAiter, func(s *schema.Snapshot, v schema.Aiter) { s.Aiter = v }),
		block("aotriton", collectAOTriton, func(s *schema.Snapshot, v schema.AOTriton) { s.AOTriton = v }),
		pending("miopen"),
		pending("miopen_catalog"),
		pending("rocfft_catalog"),
		pending("rccl"),
		pending("nics"),
		pending("gpu_arch"),
		block("host", collectHost, func(s *schema.Snapshot, v hostInfo) {
			s.Host = v.host
			s.Provenance.OSRelease = v.os
		}),
		block("docker", collectDocker, func(s *schema.Snapshot, v *schema.Docker) { s.Docker = v }),
		block("env_vars", collectEnvVars, func(s *schema.Snapshot, v schema.Map[*string]) { s.EnvVars = v }),
		block("pytorch_version", collectPytorchVersion, func(s *schema.Snapshot, v *string) { s.PytorchVersion = v }),
		block("pytorch_build", collectPytorchBuild, func(s *schema.Snapshot, v schema.PytorchBuild) { s.PytorchBuild = v }),
		block("pytorch_sdpa", collectPytorchSDPA, func(s *schema.Snapshot, v schema.PytorchSDPA) { s.PytorchSDPA = v }),
		pending("build_system"),
		pending("buck_invocation"),
		// python_version is taken when the snapshot is assembled (context.md
		// §2 item 21); its row also carries the Python bridge's own reason.
		block("python_version", collectPythonVersion, func(s *schema.Snapshot, v pythonVersion) { s.PythonVersion = v.version }),
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
