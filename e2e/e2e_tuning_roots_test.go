package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/testtree"
)

// tuningRoots are issue 34's scenario roots (the probe's side builds
// them: scripts/gentuningroots): an MI300X node that follows AMD's
// guides and one off them in four settings.
var tuningRoots = []string{"testdata/roots/tuning-mi300x-guides.txtar", "testdata/roots/tuning-mi300x-deviating.txtar"}

// TestE2ETuningRoots is issue 34's "done means" through the built binary
// over the scenario roots: the probe's document of the deviating node
// lists four deviations and the following node's none; the brief names
// each deviating setting; diff names each with its guide; --fleet (two
// following nodes, the deviating one) names the deviating node; metrics,
// checked by the real promtool, carry each with its guide; labels count
// four. The roots come with the probe's tuning block: the test is skipped
// on a tree that does not have them yet.
func TestE2ETuningRoots(t *testing.T) {
	t.Parallel()
	for _, r := range tuningRoots {
		if _, err := os.Stat(r); errors.Is(err, fs.ErrNotExist) {
			t.Skipf("%s is not in this tree (the probe's tuning block brings it)", r)
		}
	}
	bin := e2eBinary(t)
	capture := func(root, name string) string {
		out := filepath.Join(t.TempDir(), name+".json")
		code, _, errs := runCmd(t, exec.Command(bin, "--root", testtree.ArchiveFile(t, root, nil), "--no-python", out))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", root, code, errs)
		}
		return out
	}
	following, following2 := capture(tuningRoots[0], "following"), capture(tuningRoots[0], "following-2")
	deviating := capture(tuningRoots[1], "deviating")
	type dev struct{ Setting, Guide string }
	deviations := func(doc string) []dev {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			P struct {
				T *struct {
					Deviations []dev `json:"deviations"`
				} `json:"tuning"`
			} `json:"probe_provenance"`
		}
		if err := json.Unmarshal(b, &d); err != nil || d.P.T == nil {
			t.Fatalf("%s: no tuning block (%v)", doc, err)
		}
		return d.P.T.Deviations
	}
	want := deviations(deviating)
	if len(want) != 4 || len(deviations(following)) != 0 {
		t.Fatalf("deviations: deviating %+v, following %+v", want, deviations(following))
	}

	code, brief, errs := runCmd(t, exec.Command(bin, "--root", testtree.ArchiveFile(t, tuningRoots[1], nil), "--no-python", "--summary"))
	if code != 0 {
		t.Fatalf("--summary: exit %d: %s", code, errs)
	}
	_, diffMD, _ := runCmd(t, exec.Command(bin, "diff", "--format", "markdown", following, deviating))
	_, metrics, _ := runCmd(t, exec.Command(bin, "metrics", deviating))
	_, labels, _ := runCmd(t, exec.Command(bin, "labels", deviating))
	for _, d := range want {
		if !strings.Contains(brief, strings.TrimPrefix(d.Setting, "gpus.")) {
			t.Errorf("the brief does not name %s:\n%s", d.Setting, brief)
		}
		if !strings.Contains(diffMD, "probe_provenance.tuning.deviations["+d.Setting+"]") || !strings.Contains(diffMD, d.Guide) {
			t.Errorf("diff does not name %s with %q:\n%s", d.Setting, d.Guide, diffMD)
		}
		if !strings.Contains(metrics, fmt.Sprintf(`aorta_tuning_deviation_info{setting=%q,`, d.Setting)) || !strings.Contains(metrics, fmt.Sprintf(`guide=%q`, d.Guide)) {
			t.Errorf("metrics lack %s with %q", d.Setting, d.Guide)
		}
	}
	if !strings.Contains(labels, "\naorta-probe.tuning-deviations=4\n") {
		t.Errorf("labels:\n%s", labels)
	}
	if promtool, err := lookTool("promtool"); err != nil {
		skipOrFail(t, fmt.Sprintf("promtool is missing (apt-get install prometheus): %v", err))
	} else {
		check := exec.Command(promtool, "check", "metrics")
		check.Stdin = strings.NewReader(metrics)
		if out, err := check.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
	code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", "--format", "json", following, following2, deviating))
	var fleet struct {
		Tuning []struct {
			Name string   `json:"name"`
			Keys []string `json:"keys"`
		} `json:"tuning_outliers"`
	}
	if err := json.Unmarshal([]byte(out), &fleet); err != nil || code != 1 || len(fleet.Tuning) != 1 || fleet.Tuning[0].Name != deviating {
		t.Errorf("--fleet: exit %d, %v, tuning outliers %+v (stderr %q)", code, err, fleet.Tuning, errs)
	}
}
