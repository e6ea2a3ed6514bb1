package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
)

// tuningDocs writes the documents of issue 34's three scenarios, the
// golden rocm-classic-7.2.json with the GPUs and a hand-built
// probe_provenance.tuning block (internal/testdoc) of an MI300X node that
// follows AMD's guide (three of them, other nodes), one off it in four
// settings (with --tuning-state's block), an MI350X node, and one of an
// older probe (no block); it returns their paths by name.
func tuningDocs(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	node := func(n int, kind testdoc.TuningNode, state bool) testdoc.Object {
		return testdoc.Edited(t, "rocm-classic-7.2.json", testdoc.SetGPUs(testdoc.GPUsOnNode(t, n, "SPX")),
			testdoc.SetTuning(testdoc.Tuning(t, kind, n, state)))
	}
	docs := map[string]testdoc.Object{
		"following":   node(0, testdoc.MI300XFollowing, false),
		"following-2": node(2, testdoc.MI300XFollowing, false),
		"following-3": node(3, testdoc.MI300XFollowing, true),
		"deviating":   node(1, testdoc.MI300XDeviating, true),
		"mi350x":      node(4, testdoc.MI350XNode, false),
		"older":       testdoc.Edited(t, "rocm-classic-7.2.json", testdoc.SetGPUs(testdoc.GPUsOnNode(t, 5, "SPX")), testdoc.NoTuning),
	}
	paths := map[string]string{}
	for name, d := range docs {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, pyjson.Encode(d), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// deviationLines are the four deviations of the deviating MI300X node,
// as diff's text report shows each with its guide.
var deviationLines = []string{
	"numa_balancing=1 (guide: 0; AMD Instinct MI300X system optimization, “Disable NUMA auto-balancing”)",
	"cmdline_pci_realloc_off=absent (guide: pci=realloc=off; AMD Instinct MI300X system optimization, “GRUB settings”)",
	"cmdline_iommu_pt=absent (guide: iommu=pt; AMD Instinct MI300X system optimization, “GRUB settings”)",
	"gpus.vis_vram_total_bytes=268435456 (guide: 206141652992; AMD Instinct MI300X system optimization, “BIOS settings”) on 0000:a4:00.0",
}

// TestE2ETuning runs the built binary over the tuning scenarios: diff of
// the guide-following and the deviating MI300X nodes names the four
// deviations, each with its guide, in the tuning group (text and JSON);
// --fleet names the deviating node and compares the older probe's
// document on none of the block; metrics passes the real promtool check
// metrics and carries the four deviations and the state; labels count
// them.
func TestE2ETuning(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	docs := tuningDocs(t)

	t.Run("diff names the four deviations with their guides", func(t *testing.T) {
		code, out, errs := runCmd(t, exec.Command(bin, "diff", docs["following"], docs["deviating"]))
		if code != 1 {
			t.Fatalf("diff: exit %d, want 1\n%s%s", code, out, errs)
		}
		for _, l := range []string{"[tuning]", "probe_provenance.tuning.deviations[numa_balancing]", "why: off AMD's guide: NUMA auto-balancing"} {
			if !strings.Contains(out, l) {
				t.Errorf("diff text lacks %q:\n%s", l, out)
			}
		}
		// The text wraps at 80 columns; Markdown keeps each value on its line.
		_, out, _ = runCmd(t, exec.Command(bin, "diff", "--format", "markdown", docs["following"], docs["deviating"]))
		for _, l := range deviationLines {
			if !strings.Contains(out, l) {
				t.Errorf("diff markdown lacks %q:\n%s", l, out)
			}
		}
		code, out, errs = runCmd(t, exec.Command(bin, "diff", "--format", "json", docs["following"], docs["deviating"]))
		var res struct {
			Differences []struct {
				Key   string          `json:"key"`
				Group string          `json:"group"`
				B     json.RawMessage `json:"b"`
			} `json:"differences"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 {
			t.Fatalf("diff json: exit %d, %v\n%s", code, err, errs)
		}
		var guides []string
		for _, d := range res.Differences {
			if d.Group == "tuning" && strings.HasPrefix(d.Key, "probe_provenance.tuning.deviations[") {
				var list []struct{ Setting, Guide string }
				if err := json.Unmarshal(d.B, &list); err != nil || len(list) != 1 {
					t.Fatalf("%s: b %s (%v)", d.Key, d.B, err)
				}
				guides = append(guides, list[0].Setting+": "+list[0].Guide)
			}
		}
		want := fmt.Sprint([]string{"numa_balancing: " + testdoc.GuideMI300X, "cmdline_pci_realloc_off: " + testdoc.GuideMI300X,
			"cmdline_iommu_pt: " + testdoc.GuideMI300X, "gpus.vis_vram_total_bytes: " + testdoc.GuideMI300X})
		if fmt.Sprint(guides) != want {
			t.Errorf("deviation rows %q\nwant %s", guides, want)
		}
		// Two guide-following nodes, one with a --tuning-state snapshot:
		// nothing of the tuning group.
		_, out, _ = runCmd(t, exec.Command(bin, "diff", docs["following"], docs["following-3"]))
		if strings.Contains(out, "[tuning]") {
			t.Errorf("two guide-following nodes differ in tuning:\n%s", out)
		}
	})

	t.Run("--fleet names the deviating node", func(t *testing.T) {
		code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", "--format", "json",
			docs["following"], docs["following-2"], docs["following-3"], docs["deviating"], docs["older"]))
		var fleet struct {
			Outliers []struct {
				Name        string `json:"name"`
				Differences []struct {
					Key   string `json:"key"`
					Group string `json:"group"`
				} `json:"differences"`
			} `json:"outliers"`
			Places []string `json:"places"`
			Tuning []struct {
				Name string   `json:"name"`
				Keys []string `json:"keys"`
			} `json:"tuning_outliers"`
		}
		if err := json.Unmarshal([]byte(out), &fleet); err != nil || code != 1 {
			t.Fatalf("--fleet: exit %d, %v\n%s%s", code, err, out, errs)
		}
		if len(fleet.Outliers) != 1 || fleet.Outliers[0].Name != docs["deviating"] {
			t.Fatalf("outliers %+v, want the deviating node only", fleet.Outliers)
		}
		var keys []string
		for _, d := range fleet.Outliers[0].Differences {
			if d.Group == "tuning" {
				keys = append(keys, d.Key)
			}
		}
		if len(keys) == 0 || keys[0] != "probe_provenance.tuning.deviations" {
			t.Errorf("the outlier's tuning keys %q", keys)
		}
		if len(fleet.Tuning) != 1 || fleet.Tuning[0].Name != docs["deviating"] || len(fleet.Tuning[0].Keys) == 0 || fleet.Tuning[0].Keys[0] != "deviations" {
			t.Errorf("tuning_outliers %+v", fleet.Tuning)
		}
		if !strings.Contains(strings.Join(fleet.Places, "\n"), "1 document from an older aorta-probe (no tuning block)") {
			t.Errorf("places %q", fleet.Places)
		}
		_, text, _ := runCmd(t, exec.Command(bin, "diff", "--fleet", "--format", "markdown",
			docs["following"], docs["following-2"], docs["following-3"], docs["deviating"]))
		if !strings.Contains(text, "numa_balancing (MI300: AMD Instinct MI300X system optimization)") ||
			!strings.Contains(text, "\n### Settings differ from the majority\n\n- `"+docs["deviating"]+"`: `deviations`, `node.numa_balancing`") {
			t.Errorf("--fleet text does not name the deviations:\n%s", text)
		}
	})

	t.Run("metrics pass promtool and carry the deviations", func(t *testing.T) {
		promtool, err := lookTool("promtool")
		if err != nil {
			skipOrFail(t, fmt.Sprintf("promtool is missing (apt-get install prometheus): %v", err))
		}
		for _, name := range []string{"following", "deviating", "mi350x", "older"} {
			code, text, errs := runCmd(t, exec.Command(bin, "metrics", docs[name]))
			if code != 0 {
				t.Fatalf("metrics %s: exit %d: %s", name, code, errs)
			}
			check := exec.Command(promtool, "check", "metrics")
			check.Stdin = strings.NewReader(text)
			if out, err := check.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("promtool check metrics of %s: %v\n%s\non:\n%s", name, err, out, text)
			}
			want := map[string][]string{
				"following": {"aorta_tuning_deviations 0", "aorta_tuning_checked 14"},
				"deviating": {"aorta_tuning_deviations 4",
					`aorta_tuning_deviation_info{setting="numa_balancing",scope="node",value="1",guide_value="0",family="MI300",guide="AMD Instinct MI300X system optimization",section="Disable NUMA auto-balancing"} 1`,
					`aorta_tuning_deviation_info{setting="cmdline_pci_realloc_off",scope="node",value="absent",guide_value="pci=realloc=off",family="MI300",guide="AMD Instinct MI300X system optimization",section="GRUB settings"} 1`,
					`aorta_tuning_deviation_info{setting="cmdline_iommu_pt",scope="node",value="absent",guide_value="iommu=pt",family="MI300",guide="AMD Instinct MI300X system optimization",section="GRUB settings"} 1`,
					`aorta_tuning_deviation_info{setting="gpus.vis_vram_total_bytes",scope="0000:a4:00.0",value="268435456",guide_value="206141652992",family="MI300",guide="AMD Instinct MI300X system optimization",section="BIOS settings"} 1`,
					`aorta_tuning_state_events_total{pci="0001:81:00.0",name="pcie_replay_count"} 3`,
					`aorta_env_fingerprint_info{group="tuning",hash="`},
				"mi350x": {"aorta_tuning_deviations 1", "aorta_tuning_checked 15"},
				"older":  {"# TYPE aorta_tuning_deviations gauge"},
			}[name]
			for _, w := range want {
				if !strings.Contains(text, "\n"+w) {
					t.Errorf("metrics of %s lack %s", name, w)
				}
			}
			if name == "older" && strings.Contains(text, "\naorta_tuning_deviations ") {
				t.Errorf("metrics of a document without the block has a deviations sample")
			}
		}
	})

	t.Run("labels count the deviations", func(t *testing.T) {
		for name, want := range map[string]string{"following": "0", "deviating": "4", "mi350x": "1", "older": ""} {
			code, out, errs := runCmd(t, exec.Command(bin, "labels", docs[name]))
			if code != 0 || !strings.Contains(out, "\naorta-probe.tuning-deviations="+want+"\n") {
				t.Errorf("labels %s: exit %d, want tuning-deviations=%q:\n%s%s", name, code, want, out, errs)
			}
		}
	})
}
