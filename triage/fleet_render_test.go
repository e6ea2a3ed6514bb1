package triage

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
)

// TestFleetGPUOutlier: in a fleet of nodes with the same GPUs (each with
// its own serials), one node in SPX and one with a PCIe link trained
// below its maximum are the outliers, named in the hardware group in
// every format; the per-node serials flag nobody.
func TestFleetGPUOutlier(t *testing.T) {
	const n = 12
	tmpl := fleetTemplate(t, 0, nil)
	docs := map[int][]byte{}
	for i := range n {
		mode := "CPX"
		var edits []testdoc.GPUDeviceEdit
		switch i {
		case 4:
			mode = "SPX"
		case 9:
			edits = append(edits, onDevice(3, "pcie.current_link_width", pyjson.Number("4")))
		}
		m, err := pyjson.Decode(string(tmpl))
		if err != nil {
			t.Fatal(err)
		}
		m = setGPUs(gpusOnNode(t, i+1, mode, edits...))(t, m.(object))
		docs[i] = pyjson.Encode(m)
	}
	dir, paths := writeFleet(t, n, tmpl, docs)
	r := Fleet(paths, 2)
	name := func(i int) string { return filepath.Join(dir, []string{"node-0004.json", "node-0009.json"}[i]) }
	want := []GPUOutlier{
		{name(0), []string{"devices[].compute_partition", "partition_count", "devices[].partitions"}},
		{name(1), []string{"devices[].pcie.link"}},
	}
	if got := r.GPUOutliers(); !slices.EqualFunc(got, want, func(a, b GPUOutlier) bool { return a.Name == b.Name && slices.Equal(a.Keys, b.Keys) }) {
		t.Errorf("GPU outliers %q\nwant %q", got, want)
	}
	if len(r.Outliers) != 2 || r.ExitCode() != 1 {
		t.Errorf("outliers %+v, exit %d", r.Outliers, r.ExitCode())
	}
	if m, ok := r.majority("probe_provenance.gpus.devices[].compute_partition"); !ok || m.Value.Text() != "CPX" || m.Count != n-1 || m.Group != GroupHardware {
		t.Errorf("majority compute partition %+v %v", m, ok)
	}

	var text, md, js bytes.Buffer
	if err := r.Text(&text, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWidth(t, text.String())
	_, section, _ := strings.Cut(text.String(), "\nGPUs differ from the majority (2 nodes, group hardware)\n")
	section, _, _ = strings.Cut(section, "\n\n")
	wantSection := "  " + name(0) + ": devices[].compute_partition, partition_count, devices[].partitions " +
		"  " + name(1) + ": devices[].pcie.link"
	if strings.Join(strings.Fields(section), " ") != strings.Join(strings.Fields(wantSection), " ") {
		t.Errorf("the GPU section of the text report:\n%s\nwant (any wrapping)\n%s", section, wantSection)
	}
	for _, want := range []string{"probe_provenance.gpus.devices[].compute_partition (11/12)", "devices[].pcie.link"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "### GPUs differ from the majority\n\n- `"+name(0)+"`: `devices[].compute_partition`, `partition_count`, `devices[].partitions`\n") {
		t.Errorf("markdown lacks the GPU section:\n%s", md.String())
	}
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		GPUs []GPUOutlier `json:"gpu_outliers"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || len(got.GPUs) != 2 || got.GPUs[1].Keys[0] != "devices[].pcie.link" {
		t.Errorf("json gpu_outliers %+v %v", got.GPUs, err)
	}
	// The outlier's link is structured in JSON (each value with its count;
	// a fleet compares no address) and counted in the text.
	var link struct {
		Outliers []struct {
			Differences []struct {
				Key   string          `json:"key"`
				Value json.RawMessage `json:"value"`
			} `json:"differences"`
		} `json:"outliers"`
	}
	var shares []struct {
		Value any `json:"value"`
		Count int `json:"count"`
	}
	if err := json.Unmarshal(js.Bytes(), &link); err != nil || len(link.Outliers) != 2 {
		t.Fatalf("json outliers: %v", err)
	}
	d := link.Outliers[1].Differences[0]
	if err := json.Unmarshal(d.Value, &shares); err != nil {
		t.Fatalf("%s: %v", d.Key, err)
	}
	below := "32.0 GT/s PCIe x4 (below max 32.0 GT/s PCIe x16)"
	if d.Key != "probe_provenance.gpus.devices[].pcie.link" || len(shares) != 2 || shares[0].Count != 7 || shares[1].Value != below || shares[1].Count != 1 {
		t.Errorf("json outlier %s: %+v", d.Key, shares)
	}
	if flat := strings.Join(strings.Fields(text.String()), " "); !strings.Contains(flat, "node: 32.0 GT/s PCIe x16 ×7; "+below+" ×1") {
		t.Errorf("text lacks the counted link:\n%s", text.String())
	}
}
