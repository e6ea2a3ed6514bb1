package probe

import (
	"context"
	"slices"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/knobs"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// TestCollectDocker: no block on bare metal; in a container the
// launcher's image and digest variables, a reason for each one unset,
// and the container id from the root's /proc/self/cgroup.
func TestCollectDocker(t *testing.T) {
	id := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	env := func(k string) (string, bool) {
		if k == "AORTA_DOCKER_IMAGE" {
			return "rocm/pytorch:latest", true
		}
		return "", false
	}
	state := func(runtime string) *state {
		root := t.TempDir()
		testtree.Files(t, root, map[string]string{"proc/self/cgroup": "0::/docker/" + id + "\n"})
		c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: root, Cwd: "/", Env: env, Path: []string{}}})
		c.runtimeType = func() string { return runtime }
		return &state{collector: c, name: "docker"}
	}
	if s := state("baremetal"); collectDocker(s) != nil || len(s.reasons) != 0 {
		t.Errorf("bare metal: a block, reasons %q", s.reasons)
	}
	s := state("docker")
	d := collectDocker(s)
	if d == nil || golden.OrNull(d.Image) != "rocm/pytorch:latest" || d.Digest != nil || golden.OrNull(d.ContainerID) != id {
		t.Fatalf("docker block %+v", d)
	}
	if want := []string{"docker.digest: AORTA_DOCKER_DIGEST env var not set by the launcher"}; !slices.Equal(s.reasons, want) {
		t.Errorf("reasons %q, want %q", s.reasons, want)
	}
}

// TestCollectEnvVars: every knob name in the knob table's order, null
// when unset, the raw value (even "") when set.
func TestCollectEnvVars(t *testing.T) {
	names := knobs.Names()
	env := func(k string) (string, bool) {
		switch k {
		case names[0]:
			return "", true
		case names[1]:
			return "1", true
		}
		return "", false
	}
	s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/", Env: env}})}
	m := collectEnvVars(s)
	if len(m) != len(names) || m[0].Key != names[0] || golden.OrNull(m[0].Value) != "" || golden.OrNull(m[1].Value) != "1" || m[2].Value != nil {
		t.Errorf("env_vars: %d entries, first three %v %v %v", len(m), m[0], m[1], m[2])
	}
}
