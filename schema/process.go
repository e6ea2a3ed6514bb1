package schema

// Host is the kernel and libc the probe ran on
// (docs/fields-process.md#host-host-kernel-glibc-filesystem).
type Host struct {
	// Source: uname(2) release. Scope: host kernel.
	KernelRelease *string `py:"kernel_release"`
	// Source: uname(2) version. Scope: host kernel.
	KernelVersion *string `py:"kernel_version"`
	// Source: uname(2) machine. Scope: host kernel.
	Machine *string `py:"machine"`
	// Source: the version banner of the filesystem's glibc libc.so.6, the
	// substitute for confstr(_CS_GNU_LIBC_VERSION) in a static binary.
	// Scope: filesystem.
	GlibcVersion *string `py:"glibc_version"`
}

// RuntimeContext is the container runtime and Python environment kind
// (docs/fields-process.md#runtime_context-process).
type RuntimeContext struct {
	// Source: /.dockerenv, /run/.containerenv, $SINGULARITY_NAME, then
	// /proc/1/cgroup tokens. One of docker, podman, singularity, baremetal.
	Type string `py:"type"`
	// Source: $CONDA_DEFAULT_ENV, then the interpreter's sys.prefix vs
	// sys.base_prefix. One of conda, venv, system.
	PythonEnv string `py:"python_env"`
	// Source: the interpreter's sys.prefix when PythonEnv is venv.
	VenvPath *string `py:"venv_path"`
	// Source: $CONDA_DEFAULT_ENV when PythonEnv is conda.
	CondaEnvName *string `py:"conda_env_name"`
}

// NotCapturedRuntimeContext is the not-captured shape
// (docs/fields-process.md#the-not-captured-document).
func NotCapturedRuntimeContext() RuntimeContext {
	return RuntimeContext{Type: "baremetal", PythonEnv: "system"}
}

// ExecutionContext is the caller's claim about where the probe runs
// (docs/fields-process.md#execution_context-caller-asserted).
type ExecutionContext struct {
	// Source: --execution-context (default direct). Caller-asserted.
	ProbeInvocation string `py:"probe_invocation"`
	// Source: buck2 cquery -a buck.execution_platform of --buck-target.
	// Advisory; null unless asked and answered.
	LikelyExecutionPlatform *string `py:"likely_execution_platform"`
}

// Docker is the launcher-declared image and the cgroup-derived container id
// (docs/fields-process.md#docker-caller-asserted--process); the block is null
// on bare metal.
type Docker struct {
	// Source: $AORTA_DOCKER_IMAGE. Caller-asserted.
	Image *string `py:"image"`
	// Source: $AORTA_DOCKER_DIGEST. Caller-asserted.
	Digest *string `py:"digest"`
	// Source: first run of 12–64 lower-case hex digits in /proc/self/cgroup.
	ContainerID *string `py:"container_id"`
}
