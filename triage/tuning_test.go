package triage

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
	"aorta-probe/schema"
)

// tuningDoc is the golden rocm-classic-7.2.json document of node n, on a
// machine of its own (boot "boot:n"), carrying the GPUs and the tuning
// block of kind (with --tuning-state's block when state).
func tuningDoc(t *testing.T, name string, kind testdoc.TuningNode, node int, state bool, edits ...edit) *Document {
	t.Helper()
	base := []edit{placed, proven, testdoc.Identity("boot:"+string(rune('a'+node)), hostIDs, nil),
		setGPUs(gpusOnNode(t, node, "SPX")), testdoc.SetTuning(testdoc.Tuning(t, kind, node, state))}
	return doc(t, name, "rocm-classic-7.2.json", append(base, edits...)...)
}

// TestTuningFixtureIsSchema: the blocks the tests build are schema.Tuning,
// key for key in the schema's order, so that what triage is tested on is
// what the probe writes.
func TestTuningFixtureIsSchema(t *testing.T) {
	for _, kind := range []testdoc.TuningNode{testdoc.MI300XFollowing, testdoc.MI300XDeviating, testdoc.MI350XNode} {
		for _, state := range []bool{false, true} {
			want := string(pyjson.Encode(testdoc.Tuning(t, kind, 0, state)))
			var g schema.Tuning
			if err := pyjson.Unmarshal(want, &g); err != nil {
				t.Fatal(err)
			}
			if got := string(pyjson.Encode(g)); got != want {
				t.Errorf("%s: the test block is not schema.Tuning:\n got %s\nwant %s", kind, got, want)
			}
		}
	}
}

// tuningRows are r's differences in the tuning group, key without
// "probe_provenance.tuning.", A and B as the text report shows them.
func tuningRows(r *Result) []diffRow {
	var out []diffRow
	for _, d := range r.Differences {
		if d.Group == GroupTuning {
			out = append(out, diffRow{strings.TrimPrefix(d.Key, tuningKey+"."), display(d.A), display(d.B)})
		}
	}
	return out
}

// TestTuningDifferences: the guide-following MI300X node against the one
// off the guide in four settings (another machine, other XGMI hive ids,
// another --tuning-state snapshot): the four deviations first, each
// naming its guide and section, then the settings that changed by name,
// the per-GPU one as an address-free spread; never the per-node hive id,
// the paths read or the per-moment state.
func TestTuningDifferences(t *testing.T) {
	a := tuningDoc(t, "A", testdoc.MI300XFollowing, 0, true)
	b := tuningDoc(t, "B", testdoc.MI300XDeviating, 1, false)
	r := Compare(a, b)
	want := []diffRow{
		{"deviations[numa_balancing]", "no deviation",
			"numa_balancing=1 (guide: 0; AMD Instinct MI300X system optimization, “Disable NUMA auto-balancing”)"},
		{"deviations[cmdline_pci_realloc_off]", "no deviation",
			"cmdline_pci_realloc_off=absent (guide: pci=realloc=off; AMD Instinct MI300X system optimization, “GRUB settings”)"},
		{"deviations[cmdline_iommu_pt]", "no deviation",
			"cmdline_iommu_pt=absent (guide: iommu=pt; AMD Instinct MI300X system optimization, “GRUB settings”)"},
		{"deviations[gpus.vis_vram_total_bytes]", "no deviation",
			"gpus.vis_vram_total_bytes=268435456 (guide: 206141652992; AMD Instinct MI300X system optimization, “BIOS settings”) on 0000:a4:00.0"},
		{"node.numa_balancing", "0", "1"},
		{"node.cmdline_pci_realloc_off", "true", "false"},
		{"node.cmdline_iommu_pt", "true", "false"},
		{"node.iommu_gpu_group_type", "identity", "DMA-FQ"},
		{"gpus[].vis_vram_total_bytes", "206141652992", "206141652992 ×7; 268435456 ×1 (0000:a4:00.0)"},
	}
	if got := tuningRows(r); !slices.Equal(got, want) {
		t.Errorf("tuning rows\n%s\nwant\n%s", rowsText(got), rowsText(want))
	}
	for _, d := range r.Differences {
		if d.Group == GroupTuning && !strings.HasPrefix(d.Why, "off AMD's guide: ") && strings.Contains(d.Key, "deviations[") {
			t.Errorf("%s: why %q", d.Key, d.Why)
		}
		if d.Group != GroupTuning && strings.HasPrefix(d.Key, tuningKey) {
			t.Errorf("%s ranked in %s", d.Key, d.Group)
		}
	}
	var text bytes.Buffer
	if err := r.Text(&text, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWidth(t, text.String())
	for _, s := range []string{"[tuning]", "off AMD's guide: NUMA auto-balancing"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, text.String())
		}
	}
}

// retarget is b's gpus list with each GPU's dir under another root.
func retarget(t *testing.T, b object) []any {
	t.Helper()
	v, _ := b.Get("gpus")
	list := v.([]any)
	for _, g := range list {
		m := g.(object)
		dir, _ := m.Get("dir")
		m.Set("dir", "/srv/root"+dir.(string))
	}
	return list
}

func rowsText(rows []diffRow) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("  " + r.key + " | " + r.a + " | " + r.b + "\n")
	}
	return b.String()
}

// TestTuningNotDrift: what the field table leaves out of the comparison
// differs and nothing is reported: where a setting is read (another
// --root), the GPUs' XGMI hive ids and directories (another node), the
// per-moment state (present on one side only, and other values), the
// reason's wording, and a deviation's value, scope, section and why while
// its (setting, family, guide) stays. Why a setting is null is compared.
func TestTuningNotDrift(t *testing.T) {
	a := tuningDoc(t, "A", testdoc.MI300XDeviating, 0, true)
	// B's deviations: the same triples, other values, sections and whys.
	dev := testdoc.Tuning(t, testdoc.MI300XDeviating, 1, false)
	list, _ := dev.Get("deviations")
	for _, x := range list.([]any) {
		m := x.(object)
		for _, k := range []string{"value", "section", "why"} {
			m.Set(k, "other "+k)
		}
	}
	b := tuningDoc(t, "B", testdoc.MI300XDeviating, 1, false,
		set("probe_provenance.tuning.sources.numa_balancing", "/srv/root/proc/sys/kernel/numa_balancing"),
		set("probe_provenance.tuning.deviations", list),
		set("probe_provenance.tuning.reason", "x"),
		set("probe_provenance.tuning.gpus", retarget(t, testdoc.Tuning(t, testdoc.MI300XDeviating, 1, false))),
		set("probe_provenance.tuning.node.kernel_release", "6.8.0-99-generic"),
	)
	if rows := tuningRows(Compare(a, b)); len(rows) != 0 {
		t.Errorf("differences that are not drift:\n%s", rowsText(rows))
	}
	c := tuningDoc(t, "C", testdoc.MI300XDeviating, 1, false,
		set("probe_provenance.tuning.node_unread.amdgpu_cwsr_enable", "EPERM"))
	want := []diffRow{{"node.amdgpu_cwsr_enable", "unreadable (EACCES)", "unreadable (EPERM)"}}
	if got := tuningRows(Compare(a, c)); !slices.Equal(got, want) {
		t.Errorf("errno rows\n%s\nwant\n%s", rowsText(got), rowsText(want))
	}
}

// TestTuningFamilies: an MI350X node against the MI300X one that follows
// its guide: another rule set, product and count of rules judged, the
// MI350 deviation, the VRAM; a document without the block (an older
// probe) is compared on nothing of it.
func TestTuningFamilies(t *testing.T) {
	a := tuningDoc(t, "A", testdoc.MI300XFollowing, 0, false)
	b := tuningDoc(t, "B", testdoc.MI350XNode, 1, false)
	var keys []string
	for _, r := range tuningRows(Compare(a, b)) {
		keys = append(keys, r.key)
	}
	want := []string{"deviations[cmdline_pci_bfsort]",
		"family", "product", "checked", "node.cmdline_pci_bfsort", "gpus[].vis_vram_total_bytes"}
	if !slices.Equal(keys, want) {
		t.Errorf("MI300X/MI350X tuning keys %q\nwant %q", keys, want)
	}
	old := tuningDoc(t, "O", testdoc.MI300XFollowing, 1, false, testdoc.NoTuning)
	if rows := tuningRows(Compare(old, b)); len(rows) != 0 {
		t.Errorf("compared with a document without the block:\n%s", rowsText(rows))
	}
	null := tuningDoc(t, "N", testdoc.MI300XFollowing, 1, false, set("probe_provenance.tuning", nil))
	if rows := tuningRows(Compare(null, b)); len(rows) != 0 || lacking(null) != lacking(old) {
		t.Errorf("a null block: rows %v, lacking %b (a missing one %b)", rows, lacking(null), lacking(old))
	}
}

// TestFleetTuningOutlier: in a fleet of guide-following MI300X nodes, the
// one off the guide is the outlier, named on its settings and deviations
// in the tuning group; a document of an older probe (no block) is
// compared on none of them and said once.
func TestFleetTuningOutlier(t *testing.T) {
	const n = 7
	tmpl := fleetTemplate(t, 0, nil)
	docs := map[int][]byte{}
	for i := range n {
		m, err := pyjson.Decode(string(tmpl))
		if err != nil {
			t.Fatal(err)
		}
		kind := testdoc.MI300XFollowing
		if i == 3 {
			kind = testdoc.MI300XDeviating
		}
		m = testdoc.NoTuning(t, setGPUs(gpusOnNode(t, i+1, "SPX"))(t, m.(object)))
		if i != 5 {
			m = testdoc.SetTuning(testdoc.Tuning(t, kind, i+1, i%2 == 0))(t, m.(object))
		}
		docs[i] = pyjson.Encode(m)
	}
	dir, paths := writeFleet(t, n, tmpl, docs)
	r := Fleet(paths, 2)
	want := []GPUOutlier{{filepath.Join(dir, "node-0003.json"), []string{
		"deviations", "node.numa_balancing", "node.cmdline_pci_realloc_off",
		"node.cmdline_iommu_pt", "node.iommu_gpu_group_type", "gpus[].vis_vram_total_bytes"}}}
	got := r.TuningOutliers()
	if !slices.EqualFunc(got, want, func(a, b GPUOutlier) bool { return a.Name == b.Name && slices.Equal(a.Keys, b.Keys) }) {
		t.Errorf("tuning outliers %q\nwant %q", got, want)
	}
	if len(r.Outliers) != 1 || r.ExitCode() != 1 {
		t.Errorf("outliers %+v, exit %d", r.Outliers, r.ExitCode())
	}
	if m, ok := r.majority(tuningDeviationsKey); !ok || m.Value.Text() != "none" || m.Count != n-2 || m.Of != n-1 {
		t.Errorf("majority deviations %+v %v", m, ok)
	}
	for _, d := range r.Outliers[0].Differences {
		if d.Key == tuningDeviationsKey && !strings.Contains(d.Value.Text(), "numa_balancing (MI300: AMD Instinct MI300X system optimization)") {
			t.Errorf("the outlier's deviations read %q", d.Value.Text())
		}
	}
	if !slices.Contains(r.Places, "1 document from an older aorta-probe (no tuning block)") {
		t.Errorf("places %q", r.Places)
	}
	var text bytes.Buffer
	if err := r.Text(&text, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWidth(t, text.String())
	if want := "\nSettings differ from the majority (1 node, group tuning)\n  " + filepath.Join(dir, "node-0003.json") + ": deviations,\n"; !strings.Contains(text.String(), want) {
		t.Errorf("the text report lacks %q:\n%s", want, text.String())
	}
}

// TestTuningFingerprint: the tuning fingerprint follows the settings and
// deviations, never the state or the paths read; env-fingerprint (the
// software groups) does not move with it.
func TestTuningFingerprint(t *testing.T) {
	hash := func(d *Document) (tuning, env string) {
		for _, f := range Fingerprints(d) {
			if f.Group == GroupTuning {
				tuning = f.Hash
			}
		}
		for _, l := range Labels(d) {
			if l.Name == LabelPrefix+"env-fingerprint" {
				env = l.Value
			}
		}
		return tuning, env
	}
	ta, ea := hash(tuningDoc(t, "A", testdoc.MI300XFollowing, 0, false))
	tb, eb := hash(tuningDoc(t, "B", testdoc.MI300XFollowing, 0, true,
		set("probe_provenance.tuning.sources.numa_balancing", "/r/proc/sys/kernel/numa_balancing")))
	tc, ec := hash(tuningDoc(t, "C", testdoc.MI300XDeviating, 0, false))
	if ta != tb || ta == tc || ea != eb || ea != ec {
		t.Errorf("tuning hashes %s %s %s (want equal, equal, other); env %s %s %s (want equal)", ta, tb, tc, ea, eb, ec)
	}
}

// TestTuningMetricsAndLabels: the deviations as a count and one _info
// series each (hostile values escaped as every label is), the rules
// judged, the state as gauges and counters; the deviations label.
func TestTuningMetricsAndLabels(t *testing.T) {
	dev := testdoc.Tuning(t, testdoc.MI300XDeviating, 0, true)
	text := string(Metrics(tuningDoc(t, "A", testdoc.MI300XDeviating, 0, true,
		set("probe_provenance.tuning.deviations", append(must(dev.Get("deviations")).([]any), object{
			{Key: "setting", Value: "x\x1b]0;owned\x07"}, {Key: "scope", Value: "node"}, {Key: "value", Value: "a\"b\nc"},
			{Key: "guide_value", Value: "0"}, {Key: "guide", Value: "g"}, {Key: "section", Value: "s"},
			{Key: "family", Value: "MI300"}, {Key: "why", Value: "w"}})))))
	checkExposition(t, text)
	for _, want := range []string{
		"aorta_tuning_checked 14",
		"aorta_tuning_deviations 5",
		`aorta_tuning_deviation_info{setting="numa_balancing",scope="node",value="1",guide_value="0",family="MI300",guide="AMD Instinct MI300X system optimization",section="Disable NUMA auto-balancing"} 1`,
		`aorta_tuning_deviation_info{setting="gpus.vis_vram_total_bytes",scope="0000:a4:00.0",value="268435456",guide_value="206141652992",family="MI300",guide="AMD Instinct MI300X system optimization",section="BIOS settings"} 1`,
		`aorta_tuning_deviation_info{setting="x\\x1b]0;owned\\a",scope="node",value="a\"b\\nc",guide_value="0",family="MI300",guide="g",section="s"} 1`,
		`aorta_tuning_state{pci="0000:c8:00.0",name="gpu_busy_percent"} 3`,
		`aorta_tuning_state{pci="0000:0a:00.0",name="power_uw"} 173000000`,
		`aorta_tuning_state_events_total{pci="0001:81:00.0",name="pcie_replay_count"} 3`,
		"# TYPE aorta_tuning_state_events_total counter",
		`aorta_tuning_state_events_total{pci="0000:0a:00.0",name="aer_fatal"} 0`,
		`aorta_tuning_ras_errors_total{pci="0000:80:00.0",block="umc",type="ce"} 2`,
		`aorta_tuning_ras_errors_total{pci="0000:80:00.0",block="umc",type="de"} 0`,
		"# TYPE aorta_tuning_ras_errors_total counter",
	} {
		if !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("no line %s in\n%s", want, text)
		}
	}
	if strings.Contains(text, `name="mem_busy_percent"`) || strings.Contains(text, `block="gfx"`) {
		t.Errorf("a value not read has a sample")
	}
	plain := string(Metrics(tuningDoc(t, "B", testdoc.MI300XFollowing, 0, false)))
	if !strings.Contains(plain, "\naorta_tuning_deviations 0\n") || strings.Contains(plain, "\naorta_tuning_state{") {
		t.Errorf("without deviations or state:\n%s", plain)
	}
	label := func(d *Document) string {
		for _, l := range Labels(d) {
			if l.Name == LabelPrefix+"tuning-deviations" {
				return l.Value
			}
		}
		return "none"
	}
	for _, c := range []struct {
		d    *Document
		want string
	}{
		{tuningDoc(t, "A", testdoc.MI300XDeviating, 0, false), "4"},
		{tuningDoc(t, "B", testdoc.MI300XFollowing, 0, false), "0"},
		{tuningDoc(t, "C", testdoc.MI350XNode, 0, false), "1"},
		{tuningDoc(t, "D", testdoc.MI300XFollowing, 0, false, testdoc.NoTuning), ""},
	} {
		if got := label(c.d); got != c.want {
			t.Errorf("%s: tuning-deviations %q, want %q", c.d.Name, got, c.want)
		}
	}
}

func must(v any, ok bool) any {
	if !ok {
		panic("missing")
	}
	return v
}

// BenchmarkFlattenTuning: what the tuning block adds to a document --fleet
// tallies (flatten) and metrics exports: the guide-following MI300X node
// of 8 GPUs with --tuning-state's block, against the same document
// without the block.
func BenchmarkFlattenTuning(b *testing.B) {
	t := &testing.T{}
	with := tuningDoc(t, "A", testdoc.MI300XFollowing, 0, true)
	without := tuningDoc(t, "B", testdoc.MI300XFollowing, 0, true, testdoc.NoTuning)
	for _, c := range []struct {
		name string
		d    *Document
	}{{"with", with}, {"without", without}} {
		b.Run("flatten/"+c.name, func(b *testing.B) {
			for b.Loop() {
				flatten(c.d)
			}
		})
		b.Run("metrics/"+c.name, func(b *testing.B) {
			for b.Loop() {
				Metrics(c.d)
			}
		})
	}
}
