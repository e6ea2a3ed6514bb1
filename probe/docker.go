package probe

import (
	"aorta-probe/internal/knobs"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// collectDocker is the docker block
// (docs/fields-process.md#docker-caller-asserted--process): null on bare
// metal (including k8s and RE sandboxes, which read baremetal), else the
// image and digest the launcher exported and the id found in
// /proc/self/cgroup.
func collectDocker(s *state) *schema.Docker {
	// The same rule as runtime_context.type, evaluated here rather than
	// awaited: runtime_context also waits for the Python helper.
	if runtimeType(s) == "baremetal" {
		return nil
	}
	d := &schema.Docker{Image: s.envPtr("AORTA_DOCKER_IMAGE"), Digest: s.envPtr("AORTA_DOCKER_DIGEST")}
	if d.Image == nil {
		s.reason("docker.image: AORTA_DOCKER_IMAGE env var not set by the launcher")
	}
	if d.Digest == nil {
		s.reason("docker.digest: AORTA_DOCKER_DIGEST env var not set by the launcher")
	}
	if cg := s.root.ReadText("/proc/self/cgroup"); cg != nil {
		if id, ok := source.CgroupContainerID(*cg); ok {
			d.ContainerID = &id
		}
	}
	return d
}

// collectEnvVars is env_vars (docs/env-knobs.md): exactly the canonical
// knobs, in registry order, each the raw value or null when unset. Nothing
// else from the environment is ever written.
func collectEnvVars(s *state) pyjson.Map[*string] {
	names := knobs.Names()
	m := make(pyjson.Map[*string], 0, len(names))
	for _, name := range names {
		m = append(m, pyjson.Entry[*string]{Key: name, Value: s.envPtr(name)})
	}
	return m
}
