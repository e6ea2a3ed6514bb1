package triage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestFleetPlantedOutliers: 240 generated nodes (each with its own
// namespace hash, capture time and timings), two planted outliers: both
// found with exactly the planted field, nothing else flagged.
func TestFleetPlantedOutliers(t *testing.T) {
	tmpl := fleetTemplate(t, 0, nil)
	lib := fleetTemplate(t, 0, map[string]any{"hipblaslt.lib_hash": "sha256:planted"})
	drv := fleetTemplate(t, 0, map[string]any{"amdgpu_driver.package_version": "6.12.12-planted"})
	const n = 240
	dir, paths := writeFleet(t, n, tmpl, map[int][]byte{17: lib, 201: drv})
	r := Fleet(paths, 3)
	if r.Documents != n || len(r.Unreadable) != 0 {
		t.Fatalf("documents %d, unreadable %v", r.Documents, r.Unreadable)
	}
	want := map[string]string{
		filepath.Join(dir, "node-0017.json"): "hipblaslt.lib_hash",
		filepath.Join(dir, "node-0201.json"): "amdgpu_driver.package_version",
	}
	if len(r.Outliers) != len(want) {
		t.Errorf("%d outliers, want 2: %+v", len(r.Outliers), r.Outliers)
	}
	for _, o := range r.Outliers {
		if len(o.Differences) != 1 || o.Differences[0].Key != want[o.Name] {
			t.Errorf("outlier %s: %+v, want only %q", o.Name, o.Differences, want[o.Name])
		}
		if d := o.Differences[0]; d.Count != n-1 || !d.Value.Present || !strings.Contains(d.Value.JSON, "planted") {
			t.Errorf("outlier %s: %+v", o.Name, d)
		}
	}
	if len(r.Split) != 0 {
		t.Errorf("fields without a majority: %+v", r.Split)
	}
	if r.ExitCode() != 1 {
		t.Errorf("exit %d, want 1", r.ExitCode())
	}

	var text bytes.Buffer
	if err := r.Text(&text, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWidth(t, text.String())
	if !strings.HasPrefix(text.String(), "fleet: 240 documents, 2 outliers\n") {
		t.Errorf("text starts %q", text.String()[:60])
	}
	var js bytes.Buffer
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Format   string `json:"format"`
		Outliers []struct {
			Name string `json:"name"`
		} `json:"outliers"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.Format != FleetJSONFormat || len(got.Outliers) != 2 {
		t.Errorf("json: %v %+v", err, got)
	}
}

// TestFleetSplitField: a field on which no strict majority agrees flags
// nobody and is listed as varying.
func TestFleetSplitField(t *testing.T) {
	docs := []FleetDoc{
		{Name: "a", leaves: []leaf{{"rocm.version", `"7.2.1"`}, {"nics.ainic.card.uuid", `"1"`}}},
		{Name: "b", leaves: []leaf{{"rocm.version", `"7.2.1"`}, {"nics.ainic.card.uuid", `"2"`}}},
		{Name: "c", leaves: []leaf{{"rocm.version", `"7.2.1"`}, {"nics.ainic.card.uuid", `"3"`}}},
		{Name: "d", leaves: []leaf{{"rocm.version", `"7.1.0"`}}},
	}
	r := fleetOf(len(docs), func(i int) FleetDoc { return docs[i] }, 2)
	if len(r.Outliers) != 1 || r.Outliers[0].Name != "d" || len(r.Outliers[0].Differences) != 1 {
		t.Errorf("outliers %+v", r.Outliers)
	}
	if len(r.Split) != 1 || r.Split[0].Key != "nics.ainic.card.uuid" || r.Split[0].Distinct != 4 {
		t.Errorf("split %+v", r.Split)
	}
}

// TestFleetWindow: while the first document is still loading, at most
// 4×workers documents are handed out, so results cannot pile up behind a
// slow one. Document 0 waits until the window is full, then watches for
// up to 50 ms that no further document starts.
func TestFleetWindow(t *testing.T) {
	const workers, n = 3, 60
	var started atomic.Int32
	load := func(i int) FleetDoc {
		if i == 0 {
			for started.Load() < 4*workers-1 {
				runtime.Gosched()
			}
			for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
				if s := started.Load(); s > 4*workers-1 {
					t.Errorf("%d documents started while document 0 is loading, window is %d", s+1, 4*workers)
					break
				}
				time.Sleep(time.Millisecond)
			}
		} else {
			started.Add(1)
		}
		return FleetDoc{Name: fmt.Sprint(i), leaves: []leaf{{"rocm.version", `"7.2.1"`}}}
	}
	if r := fleetOf(n, load, workers); r.Documents != n {
		t.Errorf("%d documents", r.Documents)
	}
}

// TestFleetNoMajority: 5 nodes on one ROCm, 5 on another: no strict
// majority, so no outlier, but two groups with the field that splits them
// and exit 1. A per-node host field (a NIC uuid) splits nothing.
func TestFleetNoMajority(t *testing.T) {
	var docs []FleetDoc
	for i := range 10 {
		v := `"7.2.1"`
		if i >= 5 {
			v = `"7.1.0"`
		}
		docs = append(docs, FleetDoc{Name: fmt.Sprintf("node-%d", i),
			leaves: []leaf{{"rocm.version", v}, {"nics.ainic.card.uuid", fmt.Sprint(i)}},
			place:  fleetPlace{boot: fmt.Sprintf("boot:%02d", i), mnt: "4"}})
	}
	r := fleetOf(len(docs), func(i int) FleetDoc { return docs[i] }, 2)
	if len(r.Outliers) != 0 {
		t.Errorf("outliers %+v", r.Outliers)
	}
	if len(r.Groups) != 2 || r.Groups[0].Size != 5 || r.Groups[1].Size != 5 ||
		len(r.Groups[0].Values) != 1 || r.Groups[0].Values[0].Key != "rocm.version" {
		t.Fatalf("groups %+v", r.Groups)
	}
	if r.ExitCode() != 1 {
		t.Errorf("exit %d, want 1", r.ExitCode())
	}
	var text bytes.Buffer
	r.Text(&text, RenderOptions{})
	checkWidth(t, text.String())
	for _, want := range []string{"fleet: 10 documents, 0 outliers, no majority: 2 groups\n", "  group 1: 5 documents\n",
		"    rocm.version: 7.2.1\n", "    rocm.version: 7.1.0\n", "the documents come from 10 boots"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	r.JSON(&js)
	var got struct {
		ExitStatus int `json:"exit_status"`
		Groups     []struct {
			Size int `json:"size"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.ExitStatus != 1 || len(got.Groups) != 2 {
		t.Errorf("json: %v %+v\n%s", err, got, js.String())
	}
	var md bytes.Buffer
	r.Markdown(&md)
	if !strings.Contains(md.String(), "### Groups (no strict majority)") {
		t.Errorf("markdown:\n%s", md.String())
	}
}
