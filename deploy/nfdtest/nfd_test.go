// Package nfdtest parses the feature file `aorta-probe labels` writes with
// Node Feature Discovery's own local source (sigs.k8s.io/node-feature-discovery
// v0.17.3, source/local: the features.d reader of nfd-worker), and checks
// every label it yields with the validation nfd-master applies before it
// labels a node (pkg/apis/nfd/validate) and with Kubernetes' own label rules
// (docs/fleet.md, "Node Feature Discovery"). Its own module, so the
// binary's go.mod keeps no require lines; .ci/run runs it.
package nfdtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	_ "unsafe" // go:linkname

	"k8s.io/apimachinery/pkg/util/validation"
	nfdv1alpha1 "sigs.k8s.io/node-feature-discovery/api/nfd/v1alpha1"
	"sigs.k8s.io/node-feature-discovery/pkg/apis/nfd/validate"
	"sigs.k8s.io/node-feature-discovery/source"
	_ "sigs.k8s.io/node-feature-discovery/source/local" // registers the "local" source
)

// featureFilesDir is the local source's features.d directory
// (/etc/kubernetes/node-feature-discovery/features.d/ in nfd-worker): the
// test points it at a temporary directory instead of writing under /etc.
//
//go:linkname featureFilesDir sigs.k8s.io/node-feature-discovery/source/local.featureFilesDir
var featureFilesDir string

// probe builds the aorta-probe binary of the repository (two levels up).
func probe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "aorta-probe")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// edited writes the golden mi350-host.json, changed by edit, as name in
// a temporary directory of t and returns its path.
func edited(t *testing.T, name string, edit func(doc map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/golden/mi350-host.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out := filepath.Join(t.TempDir(), name)
	b, _ = json.Marshal(doc)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// hostile is the golden mi350-host.json with values no label may hold as
// they are: spaces, slashes, quotes, a line feed, non-ASCII, feature
// suffixes of gfx targets, leading punctuation, 300 characters.
func hostile(t *testing.T) string {
	t.Helper()
	return edited(t, "hostile.json", func(doc map[string]any) {
		doc["rocm"].(map[string]any)["version"] = "7.2.1 ☃ beta/../\"x\"\n" + strings.Repeat("y", 300)
		doc["hip"].(map[string]any)["version"] = "-_.leading and trailing._-"
		doc["gpu_arch"].(map[string]any)["gfx_targets"] = []any{"gfx90a:sramecc+:xnack-", "gfx942"}
		doc["pytorch_version"] = "2.9.1+rocm7.2.1"
		doc["runtime_context"].(map[string]any)["type"] = "ünïcode"
	})
}

// tuned is the golden mi350-host.json with a probe_provenance.tuning
// block whose deviations list holds four rules broken (the
// tuning-deviations label reads 4).
func tuned(t *testing.T) string {
	t.Helper()
	return edited(t, "tuned.json", func(doc map[string]any) {
		var devs []any
		for _, s := range []string{"numa_balancing", "cmdline_pci_realloc_off", "cmdline_iommu_pt", "gpus.vis_vram_total_bytes"} {
			devs = append(devs, map[string]any{"setting": s, "scope": "node", "value": "1", "guide_value": "0",
				"guide": "AMD Instinct MI300X system optimization", "section": "x", "family": "MI300", "why": "x"})
		}
		doc["probe_provenance"].(map[string]any)["tuning"] = map[string]any{"family": "MI300", "checked": 14, "deviations": devs}
	})
}

// TestLocalSourceParsesLabels: for every golden scenario document, a
// hostile one and one with the tuning block (tuning-deviations=4),
// `aorta-probe labels DOC features.d/aorta-probe` writes a file from which
// NFD's local source yields exactly the file's name=value lines, each a
// label nfd-master accepts once it adds its feature.node.kubernetes.io/
// namespace.
func TestLocalSourceParsesLabels(t *testing.T) {
	bin := probe(t)
	goldens, _ := filepath.Glob("../../testdata/golden/*.json")
	if len(goldens) == 0 {
		t.Fatal("no golden documents")
	}
	goldens = append(goldens, hostile(t), tuned(t))
	src := source.GetLabelSource("local")
	fsrc := source.GetFeatureSource("local")
	if src == nil || fsrc == nil {
		t.Fatal("NFD's local source is not registered")
	}
	for _, g := range goldens {
		t.Run(filepath.Base(g), func(t *testing.T) {
			dir := t.TempDir()
			featureFilesDir = dir
			file := filepath.Join(dir, "aorta-probe")
			if out, err := exec.Command(bin, "labels", g, file).CombinedOutput(); err != nil {
				t.Fatalf("aorta-probe labels %s: %v\n%s", g, err, out)
			}
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, l := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
				if strings.HasPrefix(l, "#") {
					continue
				}
				name, value, ok := strings.Cut(l, "=")
				if !ok {
					t.Fatalf("line %q is no name=value", l)
				}
				want[name] = value
			}
			if len(want) < 8 {
				t.Fatalf("%d labels in\n%s", len(want), text)
			}
			if g == goldens[len(goldens)-1] && want["aorta-probe.tuning-deviations"] != "4" {
				t.Errorf("tuning-deviations=%q, want 4:\n%s", want["aorta-probe.tuning-deviations"], text)
			}

			if err := fsrc.Discover(); err != nil {
				t.Fatal(err)
			}
			got, err := src.GetLabels()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("NFD read %d labels, the file holds %d:\n%v\n%s", len(got), len(want), got, text)
			}
			for name, value := range want {
				v, ok := got[name]
				if !ok || v != value {
					t.Errorf("NFD read %s=%v (present %v), the file says %q", name, v, ok, value)
				}
				key := nfdv1alpha1.FeatureLabelNs + "/" + name
				if err := validate.Label(key, value); err != nil {
					t.Errorf("nfd-master refuses %s=%s: %v", key, value, err)
				}
				if errs := validation.IsQualifiedName(key); len(errs) > 0 {
					t.Errorf("label name %s: %v", key, errs)
				}
				if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
					t.Errorf("label value %q: %v", value, errs)
				}
			}
			t.Logf("%s", text)
		})
	}
}
