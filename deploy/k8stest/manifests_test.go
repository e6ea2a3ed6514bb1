// Package k8stest checks the fleet manifests under deploy/ with the real
// Kubernetes types: every file decodes strictly (an unknown or misspelled
// field is an error) into the type its kind names, and each runs the probe
// the way docs/fleet.md says: the FROM-scratch image's entrypoint with
// --out-dir, NODE_NAME from the downward API, the output directory a
// mounted volume, one probe per node. Its own module, so the binary's
// go.mod keeps no require lines; .ci/run runs it.
package k8stest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// decode reads path and strictly decodes it into the type of its kind.
func decode(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(b, &tm); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "apps/v1 DaemonSet":
		obj = &appsv1.DaemonSet{}
	default:
		t.Fatalf("%s: unexpected kind %q %q", path, tm.APIVersion, tm.Kind)
	}
	if err := yaml.UnmarshalStrict(b, obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj
}

func TestManifests(t *testing.T) {
	files, _ := filepath.Glob("../kubernetes/*.yaml")
	if len(files) != 3 {
		t.Fatalf("manifests %v, want the Indexed Job and the two DaemonSets", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			switch o := decode(t, f).(type) {
			case *batchv1.Job:
				s := o.Spec
				if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
					t.Error("not an Indexed Job")
				}
				if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
					t.Error("completions and parallelism must both be the node count")
				}
				if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
					t.Errorf("restartPolicy %q, want Never", s.Template.Spec.RestartPolicy)
				}
				checkOnePerNode(t, s.Template)
				checkProbe(t, s.Template.Spec, s.Template.Spec.Containers)
			case *appsv1.DaemonSet:
				sel, err := metav1.LabelSelectorAsMap(o.Spec.Selector)
				if err != nil || len(sel) == 0 || !matches(sel, o.Spec.Template.Labels) {
					t.Errorf("selector %v does not select the template's labels %v", sel, o.Spec.Template.Labels)
				}
				if len(o.Spec.Template.Spec.Containers) != 1 || !strings.HasPrefix(o.Spec.Template.Spec.Containers[0].Image, "registry.k8s.io/pause:") {
					t.Error("the DaemonSet's one container must be pause, so the probe does not restart")
				}
				if filepath.Base(f) == "node-labels.yaml" {
					checkDerived(t, o.Spec.Template.Spec)
				} else {
					checkProbe(t, o.Spec.Template.Spec, o.Spec.Template.Spec.InitContainers)
				}
			}
		})
	}
}

func matches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// checkOnePerNode: a required pod anti-affinity over the host name that
// selects the template's own pods.
func checkOnePerNode(t *testing.T, tmpl corev1.PodTemplateSpec) {
	t.Helper()
	a := tmpl.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		t.Fatal("no pod anti-affinity: two probes may share a node")
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, err := metav1.LabelSelectorAsMap(term.LabelSelector)
		if err == nil && term.TopologyKey == "kubernetes.io/hostname" && len(sel) > 0 && matches(sel, tmpl.Labels) {
			return
		}
	}
	t.Error("no required anti-affinity on kubernetes.io/hostname selecting the Job's own pods")
}

// checkProbe: exactly one container runs the image's entrypoint (no
// command, so no shell) with --out-dir DIR, NODE_NAME from spec.nodeName,
// and DIR a mount of a hostPath or persistent volume.
func checkProbe(t *testing.T, pod corev1.PodSpec, containers []corev1.Container) {
	t.Helper()
	if len(containers) != 1 {
		t.Fatalf("%d probe containers, want 1", len(containers))
	}
	c := containers[0]
	if len(c.Command) != 0 {
		t.Errorf("command %q: the image's entrypoint is the probe, and there is no shell", c.Command)
	}
	i := slices.Index(c.Args, "--out-dir")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("args %q: no --out-dir DIR", c.Args)
	}
	dir := c.Args[i+1]
	var nodeName bool
	for _, e := range c.Env {
		if e.Name == "NODE_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName" {
			nodeName = true
		}
	}
	if !nodeName {
		t.Error("no NODE_NAME from the downward API's spec.nodeName")
	}
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == dir && !m.ReadOnly {
			volume = m.Name
		}
	}
	if volume == "" {
		t.Fatalf("--out-dir %s is not a writable volume mount", dir)
	}
	for _, v := range pod.Volumes {
		if v.Name == volume {
			if v.HostPath == nil && v.PersistentVolumeClaim == nil {
				t.Errorf("volume %s is neither hostPath nor a persistent volume claim", volume)
			}
			return
		}
	}
	t.Errorf("no volume named %s", volume)
}

// checkDerived checks node-labels.yaml (docs/fleet.md, "Node Feature
// Discovery"): a first init container probes into a volume with --out-dir
// DIR and NODE_NAME from spec.nodeName; then "labels" and "metrics" read
// DIR/$(NODE_NAME).json (NODE_NAME defined in each, so Kubernetes expands
// it) and write into a hostPath: the feature file into NFD's features.d,
// the .prom file into node_exporter's textfile directory.
func checkDerived(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	ics := pod.InitContainers
	if len(ics) != 3 {
		t.Fatalf("%d init containers, want probe, labels, metrics", len(ics))
	}
	probe := ics[0]
	i := slices.Index(probe.Args, "--out-dir")
	if len(probe.Command) != 0 || i < 0 || i+1 >= len(probe.Args) || !nodeNameEnv(probe) {
		t.Fatalf("probe: command %q args %q: want the entrypoint with --out-dir DIR and NODE_NAME from spec.nodeName", probe.Command, probe.Args)
	}
	dir := probe.Args[i+1]
	docVolume := mountAt(probe, dir)
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	for j, want := range []struct{ cmd, hostSuffix, outSuffix string }{
		{"labels", "/node-feature-discovery/features.d", ""},
		{"metrics", "", ".prom"},
	} {
		c := ics[j+1]
		if len(c.Command) != 0 || len(c.Args) != 3 || c.Args[0] != want.cmd || c.Args[1] != dir+"/$(NODE_NAME).json" || !nodeNameEnv(c) {
			t.Errorf("%s: command %q args %q: want the entrypoint with %s %s/$(NODE_NAME).json OUT and NODE_NAME from spec.nodeName", c.Name, c.Command, c.Args, want.cmd, dir)
			continue
		}
		if docVolume == "" || mountAt(c, dir) != docVolume {
			t.Errorf("%s: %s is not the probe's volume", c.Name, dir)
		}
		out := c.Args[2]
		if !strings.HasSuffix(out, want.outSuffix) {
			t.Errorf("%s: OUT %s does not end in %s", c.Name, out, want.outSuffix)
		}
		v, ok := volumes[mountAt(c, filepath.Dir(out))]
		switch {
		case !ok:
			t.Errorf("%s: the directory of OUT %s is no writable volume mount", c.Name, out)
		case v.HostPath == nil:
			t.Errorf("%s: volume %s is no hostPath: the node's daemon would not see OUT", c.Name, v.Name)
		case !strings.HasSuffix(v.HostPath.Path, want.hostSuffix):
			t.Errorf("%s: hostPath %s, want ...%s", c.Name, v.HostPath.Path, want.hostSuffix)
		}
	}
}

func nodeNameEnv(c corev1.Container) bool {
	for _, e := range c.Env {
		if e.Name == "NODE_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName" {
			return true
		}
	}
	return false
}

// mountAt is the volume c mounts at path, "" when none.
func mountAt(c corev1.Container, path string) string {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return m.Name
		}
	}
	return ""
}

// TestContainerfile: FROM scratch, the binary and nothing else, the binary
// as the exec-form entrypoint the manifests rely on.
func TestContainerfile(t *testing.T) {
	b, err := os.ReadFile("../Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	want := []string{"FROM scratch", "COPY aorta-probe /aorta-probe", `ENTRYPOINT ["/aorta-probe"]`}
	if !slices.Equal(lines, want) {
		t.Errorf("instructions %q, want %q", lines, want)
	}
}
