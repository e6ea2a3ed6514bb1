package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
)

// Documents that say the same in another shape (issue 31, items 3 and 4;
// docs/triage.md "Canonical form" and "A fleet of mixed probe versions"),
// through the static binary, from the real MI308X scenario's document
// (testdata/golden/gpus-mi308x-cpx.json, captured from
// testdata/roots/gpus-mi308x-cpx.txtar).

// writeDoc writes m as the probe writes a document and returns its path.
func writeDoc(t *testing.T, dir, name string, m pyjson.Map[any]) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pyjson.Encode(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sortNested puts the members of every object below the top level of v
// in byte order, in place: a re-serialisation validate accepts (nested
// order is no contract, docs/schema.md).
func sortNested(v any, depth int) {
	switch x := v.(type) {
	case pyjson.Map[any]:
		if depth > 0 {
			slices.SortStableFunc(x, func(a, b pyjson.Entry[any]) int { return strings.Compare(a.Key, b.Key) })
		}
		for _, e := range x {
			sortNested(e.Value, depth+1)
		}
	case []any:
		for _, e := range x {
			sortNested(e, depth+1)
		}
	}
}

// TestE2ESortedNestedDocument: the MI308X document with every nested
// object's keys sorted (probe_provenance.rocm_installs.loader's items
// among them) gives the verdict, the differences, the fleet result, the
// metrics and the labels of the document as written.
func TestE2ESortedNestedDocument(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	const golden = "gpus-mi308x-cpx.json"
	written := writeDoc(t, dir, "written.json", testdoc.Golden(t, golden))
	copyOf := writeDoc(t, dir, "copy.json", testdoc.Golden(t, golden))
	m := testdoc.Golden(t, golden)
	sortNested(m, 0)
	sorted := writeDoc(t, dir, "sorted.json", m)
	// other: another library path in the loader's first item; sorted.
	other := testdoc.Edited(t, golden, testdoc.Set("probe_provenance.rocm_installs.loader", []any{
		testdoc.Object{{Key: "via", Value: nil}, {Key: "path", Value: "/opt/rocm-7.1.0/lib/libamdhip64.so"}, {Key: "library", Value: "libamdhip64.so"}, {Key: "install", Value: nil}}}))
	otherPath := writeDoc(t, dir, "other.json", other)

	if code, out, errs := runCmd(t, exec.Command(bin, "validate", sorted)); code != 0 {
		t.Fatalf("validate sorted: exit %d, %s%s", code, out, errs)
	}
	diff := func(args ...string) (int, string) {
		code, out, errs := runCmd(t, exec.Command(bin, append([]string{"diff"}, args...)...))
		if errs != "" {
			t.Errorf("diff %v: stderr %q", args, errs)
		}
		// The names are the only thing the two runs may differ in.
		return code, strings.NewReplacer(sorted, "X", copyOf, "X", written, "W").Replace(out)
	}
	for _, format := range []string{"text", "json"} {
		wantCode, want := diff("--format", format, written, copyOf)
		if code, got := diff("--format", format, written, sorted); code != wantCode || got != want {
			t.Errorf("diff --format %s written sorted: exit %d, want %d as with a copy:\n%s\nwant\n%s", format, code, wantCode, got, want)
		}
		wantCode, want = diff("--format", format, copyOf, otherPath)
		if code, got := diff("--format", format, sorted, otherPath); code != wantCode || got != want {
			t.Errorf("diff --format %s sorted other: exit %d, want %d as the document as written:\n%s\nwant\n%s", format, code, wantCode, got, want)
		}
	}

	fleet := filepath.Join(dir, "fleet")
	os.Mkdir(fleet, 0o755)
	for _, name := range []string{"node-1.json", "node-2.json"} {
		writeDoc(t, fleet, name, testdoc.Golden(t, golden))
	}
	writeDoc(t, fleet, "node-3.json", m)
	if code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", fleet)); code != 0 || errs != "" || !strings.HasPrefix(out, "fleet: 3 documents, 0 outliers\n") {
		t.Errorf("fleet of two written and one sorted: exit %d, stderr %q\n%s", code, errs, out)
	}

	for _, cmd := range []string{"metrics", "labels"} {
		_, want, _ := runCmd(t, exec.Command(bin, cmd, written))
		if code, got, errs := runCmd(t, exec.Command(bin, cmd, sorted)); code != 0 || got != want || want == "" {
			t.Errorf("%s of the sorted document: exit %d, stderr %q; differs from the document as written:\n%s\nwant\n%s", cmd, code, errs, got, want)
		}
	}
}

// TestE2EFleetRollingUpgrade: a fleet in the middle of a rolling upgrade,
// MI308X nodes on the current aorta-probe, nodes on an older one (no
// probe_provenance.gpus) and a node written --no-provenance. Nothing
// makes a node an outlier but a real difference; each kind of older
// document is said once.
func TestE2EFleetRollingUpgrade(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	const golden = "gpus-mi308x-cpx.json"
	for _, name := range []string{"node-1.json", "node-2.json", "node-3.json"} {
		writeDoc(t, dir, name, testdoc.Golden(t, golden))
	}
	old := testdoc.Edited(t, golden, testdoc.Del("probe_provenance.gpus"))
	oldPath := writeDoc(t, dir, "node-4.json", old)
	writeDoc(t, dir, "node-5.json", old)
	writeDoc(t, dir, "node-6.json", testdoc.Edited(t, golden, testdoc.Del("probe_provenance")))
	// A real difference on an old node is still found.
	writeDoc(t, dir, "node-7.json", testdoc.Edited(t, golden, testdoc.Del("probe_provenance.gpus"), testdoc.Set("rocm.version", "7.1.0")))

	// diff says no identity difference between the old and the new.
	code, out, _ := runCmd(t, exec.Command(bin, "diff", "--format", "json", filepath.Join(dir, "node-1.json"), oldPath))
	var res struct {
		Differences []any `json:"differences"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Differences) != 0 {
		t.Fatalf("diff new old: exit %d, %v, want no differences:\n%s", code, err, out)
	}

	code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", dir))
	if code != 1 || errs != "" || !strings.HasPrefix(out, "fleet: 7 documents, 1 outlier\n") ||
		!strings.Contains(out, "\n  "+filepath.Join(dir, "node-7.json")+": 1 field\n    rocm.version ") {
		t.Errorf("fleet: exit %d, stderr %q, want 1 outlier (node-7, rocm.version only):\n%s", code, errs, out)
	}
	words := strings.Join(strings.Fields(out), " ")
	// The majority of a gpus field is over the documents that carry it.
	if !strings.Contains(words, "probe_provenance.gpus.physical_count (3/3) 8") {
		t.Errorf("fleet: want the GPU count's majority over the 3 documents with the block:\n%s", out)
	}
	for _, note := range []string{
		"- 3 documents from an older aorta-probe (no gpus block)",
		"- 1 document without probe_provenance (another probe, or --no-provenance)",
	} {
		if strings.Count(words, note) != 1 {
			t.Errorf("fleet: want %q once:\n%s", note, out)
		}
	}
	if strings.Contains(out, "absent") {
		t.Errorf("fleet: a field reads absent:\n%s", out)
	}
}
