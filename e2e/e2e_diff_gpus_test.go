package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
)

// TestE2EDiffGPUs runs the built binary's diff over documents whose GPUs
// differ: the golden mi350-host.json with an 8 × MI308X gpus block
// (testdoc.GPUs, the shared kfd fixture) and gpu_arch to match, node A in
// CPX, node B (other serials, same addresses) in SPX. The two-document
// diff is "same place, different software" (exit 1): the enumerator's
// agent count in the gpu group, then the hardware group says why; --fleet
// over three nodes names the SPX one.
func TestE2EDiffGPUs(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	write := func(name string, node int, mode string) string {
		// gpu_arch as rocm_agent_enumerator reports the node: one agent
		// per partition.
		agents := pyjson.Number(map[string]string{"CPX": "32", "SPX": "8"}[mode])
		arch := testdoc.Object{{Key: "agent_count", Value: agents}, {Key: "gfx_targets", Value: []any{"gfx942"}},
			{Key: "agent_arch_counts", Value: testdoc.Object{{Key: "gfx942", Value: agents}}}}
		m := testdoc.Edited(t, "mi350-host.json", testdoc.Placed, testdoc.Proven, testdoc.Set("gpu_arch", arch),
			testdoc.SetGPUs(testdoc.GPUsOnNode(t, node, mode)))
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pyjson.Encode(m), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a.json", 0, "CPX"), write("b.json", 1, "SPX")

	code, out, errs := runCmd(t, exec.Command(bin, "diff", a, b))
	if code != 1 || errs != "" {
		t.Fatalf("diff: exit %d, stderr %q\n%s", code, errs, out)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != "same place, different software" {
		t.Errorf("first line %q", first)
	}
	want := `Identity differences (5), most likely to change numerics first
  [gpu]
   1. gpu_arch.agent_count
        A: 32
        B: 8
   2. gpu_arch.agent_arch_counts.gfx942
        A: 32
        B: 8
      why: the GPUs the process sees: kernels are chosen per gfx target, and the
           count changes sharding
  [hardware]
   3. probe_provenance.gpus.devices[].compute_partition
        A: CPX
        B: SPX
      why: the compute partition mode (SPX … CPX): how many XCCs and CUs each
           agent gets; the number of agents, grid sizes and the GEMM solutions
           picked per CU count change with it
   4. probe_provenance.gpus.partition_count
        A: 32
        B: 8
   5. probe_provenance.gpus.devices[].partitions
        A: 4
        B: 1
      why: the kfd agents the GPUs are split into (partitions): what the process
           enumerates and shards over
`
	if _, got, _ := strings.Cut(out, "\n\nIdentity"); "Identity"+got != want {
		t.Errorf("diff ends\n%s\nwant\n%s", "Identity"+got, want)
	}

	code, out, _ = runCmd(t, exec.Command(bin, "diff", "--format", "json", a, b))
	type share struct {
		Value   any      `json:"value"`
		Count   int      `json:"count"`
		Devices []string `json:"devices"`
	}
	var res struct {
		Differences []struct {
			Key   string          `json:"key"`
			Group string          `json:"group"`
			A     json.RawMessage `json:"a"`
			B     json.RawMessage `json:"b"`
		} `json:"differences"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 || len(res.Differences) != 5 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	// A device attribute is structured: each value with its count and
	// the devices holding it (here every GPU of one machine changed).
	d := res.Differences[2]
	var sa, sb []share
	if err := json.Unmarshal(d.A, &sa); err != nil {
		t.Fatalf("%s: a: %v", d.Key, err)
	}
	if err := json.Unmarshal(d.B, &sb); err != nil {
		t.Fatalf("%s: b: %v", d.Key, err)
	}
	if d.Key != "probe_provenance.gpus.devices[].compute_partition" || d.Group != "hardware" || len(sa) != 1 || len(sb) != 1 ||
		sa[0].Value != "CPX" || sb[0].Value != "SPX" || sa[0].Count != 8 || len(sb[0].Devices) != 8 {
		t.Errorf("json first hardware difference %s: a %+v, b %+v", d.Key, sa, sb)
	}

	fleet := filepath.Join(dir, "fleet")
	if err := os.Mkdir(fleet, 0o755); err != nil {
		t.Fatal(err)
	}
	dir = fleet
	write("node-1.json", 1, "CPX")
	write("node-2.json", 2, "SPX")
	write("node-3.json", 3, "CPX")
	code, out, errs = runCmd(t, exec.Command(bin, "diff", "--fleet", fleet))
	wantSection := "\nGPUs differ from the majority (1 node, group hardware)\n  " + filepath.Join(fleet, "node-2.json") + ":"
	if code != 1 || !strings.Contains(out, wantSection) {
		t.Errorf("fleet: exit %d, stderr %q, want %q in\n%s", code, errs, wantSection, out)
	}
}
