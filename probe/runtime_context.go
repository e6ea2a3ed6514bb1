package probe

import (
	"aorta-probe/schema"
)

// runtimeType is runtime_context.type
// (docs/fields-process.md#runtime_context-process): the first of /.dockerenv,
// /run/.containerenv, $SINGULARITY_NAME and the /proc/1/cgroup tokens
// singularity, docker, podman; else baremetal. containerd, k8s and RE
// sandboxes read baremetal (container_detected and the isolation evidence
// cover them). It is evaluated once per collection (collector.runtimeType)
// and shared by runtime_context, docker and the not-captured document.
func runtimeType(s *state) string { return s.collector.runtimeType() }

func detectRuntimeType(s *state) string {
	for _, r := range runtimeRules {
		if f, runtime := r.check(s); f.fired {
			return runtime
		}
	}
	return "baremetal"
}

// collectRuntimeContext is the runtime_context block
// (docs/fields-process.md#runtime_context-process). The Go side decides type;
// python_env comes from $CONDA_DEFAULT_ENV, then from the workload
// interpreter's sys.prefix and sys.base_prefix as the Python helper reports
// them (venv when they differ; venv_path = sys.prefix). When no interpreter
// reported (none found, --no-python, or it failed before its first answer)
// the env-only fallback applies: $VIRTUAL_ENV, the variable an activated venv
// exports, stands in for the prefix comparison (docs/python.md).
//
// It is the first probe and starts the one helper run; the command record
// of that run is kept in this probe's provenance, whoever started it.
func collectRuntimeContext(s *state) schema.RuntimeContext {
	rc := schema.RuntimeContext{Type: runtimeType(s), PythonEnv: "system"}
	f := s.python()
	if f.command != nil {
		c := *f.command
		c.probe = s.name
		s.mu.Lock()
		s.commands = append(s.commands, c)
		s.mu.Unlock()
	}
	if conda := s.getenv("CONDA_DEFAULT_ENV"); conda != "" {
		rc.PythonEnv, rc.CondaEnvName = "conda", &conda
		return rc
	}
	if in := f.Interpreter; in != nil {
		if in.BasePrefix != in.Prefix {
			prefix := in.Prefix
			rc.PythonEnv, rc.VenvPath = "venv", &prefix
		}
		return rc
	}
	if venv := s.getenv("VIRTUAL_ENV"); venv != "" {
		rc.PythonEnv, rc.VenvPath = "venv", &venv
	}
	return rc
}
