package probe

import (
	"strings"

	"aorta-probe/schema"
)

// runtimeType is context.md §3.1: the first of /.dockerenv, /run/.containerenv,
// $SINGULARITY_NAME and the /proc/1/cgroup tokens singularity, docker,
// podman; else baremetal. containerd, k8s and RE sandboxes read baremetal
// (container_detected and the isolation evidence cover them).
func runtimeType(s *state) string {
	switch {
	case s.root.exists("/.dockerenv"):
		return "docker"
	case s.root.exists("/run/.containerenv"):
		return "podman"
	case s.getenv("SINGULARITY_NAME") != "":
		return "singularity"
	}
	if cg := s.root.readText("/proc/1/cgroup"); cg != nil {
		for _, tok := range []string{"singularity", "docker", "podman"} {
			if strings.Contains(*cg, tok) {
				return tok
			}
		}
	}
	return "baremetal"
}

// collectRuntimeContext is the runtime_context block (context.md §3). The
// Go side decides type; python_env comes from $CONDA_DEFAULT_ENV and, for
// venv, from $VIRTUAL_ENV, the variable an activated venv exports (the
// Python probe compares sys.prefix with sys.base_prefix instead).
func collectRuntimeContext(s *state) schema.RuntimeContext {
	rc := schema.RuntimeContext{Type: runtimeType(s), PythonEnv: "system"}
	if conda := s.getenv("CONDA_DEFAULT_ENV"); conda != "" {
		rc.PythonEnv, rc.CondaEnvName = "conda", &conda
	} else if venv := s.getenv("VIRTUAL_ENV"); venv != "" {
		rc.PythonEnv, rc.VenvPath = "venv", &venv
	}
	return rc
}
