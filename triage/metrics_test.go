package triage

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/testdoc"
	"aorta-probe/internal/visible"
	"aorta-probe/schema"
)

// TestFingerprintsFollowDiff: a field edit changes the hash of exactly the
// groups diff ranks its difference in (Compare's Differences), and a
// field diff does not compare (capture time, namespace, timings) changes
// none.
func TestFingerprintsFollowDiff(t *testing.T) {
	base := doc(t, "A", "mi350-host.json")
	cases := []struct {
		name  string
		edits []edit
		want  []Group
	}{
		{"rocm version", []edit{set("rocm.version", "7.3.0")}, []Group{GroupROCm}},
		{"hip", []edit{set("hip.version", "7.3.1-x")}, []Group{GroupROCm}},
		{"driver", []edit{set("amdgpu_driver.module_version", "6.99")}, []Group{GroupDriver}},
		{"gpus", []edit{set("gpu_arch.agent_count", num("4"))}, []Group{GroupGPU}},
		{"library", []edit{set("rocblas.lib_hash", "sha256:00")}, []Group{GroupLibraries}},
		{"catalog", []edit{set("tensile", nil)}, []Group{GroupLibraries}},
		{"python", []edit{set("pytorch_version", "2.9.1")}, []Group{GroupPython}},
		{"knob", []edit{set("env_vars.HSA_XNACK", "1")}, []Group{GroupEnv}},
		{"off-registry variable", []edit{set("env_vars.NOT_A_KNOB", "1")}, nil},
		{"host", []edit{set("host.glibc_version", "2.39")}, []Group{GroupHost}},
		{"two groups", []edit{set("rocm.version", "7.3.0"), set("env_vars.HSA_XNACK", "1")}, []Group{GroupROCm, GroupEnv}},
		{"capture only", []edit{set("captured_at", "2027-01-01T00:00:00Z"), set("probe_namespace", "mnt:ff"),
			set("probe_provenance.duration_us", num("12345")), set("partial", false)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			other := doc(t, "B", "mi350-host.json", c.edits...)
			var got []Group
			fa, fb := Fingerprints(base), Fingerprints(other)
			if len(fa) != len(FingerprintGroups) || len(fb) != len(fa) {
				t.Fatalf("%d and %d fingerprints, want %d", len(fa), len(fb), len(FingerprintGroups))
			}
			for i := range fa {
				if fa[i].Group != FingerprintGroups[i] || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(fa[i].Hash) {
					t.Errorf("fingerprint %d: %+v", i, fa[i])
				}
				if fa[i] != fb[i] {
					got = append(got, fa[i].Group)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("groups whose hash changed: %v, want %v", got, c.want)
			}
			// diff ranks the same differences into the same groups.
			var ranked []Group
			for _, d := range Compare(base, other).Differences {
				if !slices.Contains(ranked, d.Group) && slices.Contains(FingerprintGroups, d.Group) {
					ranked = append(ranked, d.Group)
				}
			}
			slices.SortFunc(ranked, func(a, b Group) int {
				return slices.Index(FingerprintGroups, a) - slices.Index(FingerprintGroups, b)
			})
			if !slices.Equal(ranked, c.want) {
				t.Errorf("diff ranks differences in %v, the fingerprints changed in %v", ranked, c.want)
			}
		})
	}
}

// exposition line shapes of the text format 0.0.4, as promtool reads them.
var (
	metricLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:\\[\\"n]|[^"\\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:\\[\\"n]|[^"\\\n])*")*\})? (-?[0-9]+(?:\.[0-9]+)?)$`)
	labelValue = regexp.MustCompile(`="((?:\\[\\"n]|[^"\\\n])*)"`)
	helpLine   = regexp.MustCompile(`^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$`)
)

// checkExposition: every line is a HELP, a TYPE (gauge, or counter for a
// family ending in _total) or a sample of the
// family announced last, with valid names, escaped values of valid UTF-8
// within LabelValueMax bytes once unescaped.
func checkExposition(t *testing.T, text string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("no final line feed:\n%s", text)
	}
	family := ""
	typed := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if m := helpLine.FindStringSubmatch(l); m != nil {
			if m[1] == "TYPE" {
				if m[2] != family || m[3] != map[bool]string{false: "gauge", true: "counter"}[strings.HasSuffix(family, "_total")] || typed[m[2]] {
					t.Errorf("TYPE line %q (family %s)", l, family)
				}
				typed[m[2]] = true
			}
			family = m[2]
			continue
		}
		m := metricLine.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("not a sample line: %q", l)
			continue
		}
		if m[1] != family || !typed[family] {
			t.Errorf("sample %q outside its family %s", l, family)
		}
		for _, v := range labelValue.FindAllStringSubmatch(m[2], -1) {
			raw := strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n").Replace(v[1])
			if !utf8.ValidString(raw) || len(raw) > LabelValueMax {
				t.Errorf("label value %q: invalid UTF-8 or over %d bytes", raw, LabelValueMax)
			}
		}
	}
}

func TestMetricsGoldens(t *testing.T) {
	goldens, _ := filepath.Glob("../testdata/golden/*.json")
	if len(goldens) == 0 {
		t.Fatal("no golden documents")
	}
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Parse(g, string(b))
		if err != nil {
			t.Fatal(err)
		}
		text := string(Metrics(d))
		checkExposition(t, text)
		for _, want := range []string{"\naorta_env_info{schema_version=", "\naorta_env_partial ", "\naorta_env_fingerprint_info{group=\"rocm\",hash=\""} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q in\n%s", g, want, text)
			}
		}
	}
}

// TestMetricsValues: the identity, knob and time series of two scenario
// documents, line for line.
func TestMetricsValues(t *testing.T) {
	text := string(Metrics(doc(t, "A", "docker-container.json", set("probe_provenance.duration_us", num("1234567")))))
	for _, want := range []string{
		`aorta_env_info{schema_version="1.16",rocm_version="",hip_version="",kernel_release="6.8.0-49-generic",gfx_targets="",torch_version="",runtime="docker",container_detected="true"} 1`,
		`aorta_env_captured_timestamp_seconds 1777377600`,
		`aorta_env_capture_duration_seconds 1.234567`,
		`aorta_env_knob_info{name="HIP_VISIBLE_DEVICES",value="0,1,2,3"} 1`,
		`aorta_env_knob_info{name="PYTORCH_ROCM_ARCH",value="gfx942"} 1`,
		`aorta_env_knob_info{name="MIOPEN_FIND_MODE",value=""} 1`,
	} {
		if !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("no line %s in\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\naorta_env_knob_info{"); n != 3 {
		t.Errorf("%d knob series, want the 3 set", n)
	}
	text = string(Metrics(doc(t, "B", "mi350-host.json", set("gpu_arch.gfx_targets", []any{"gfx942", "gfx950"}))))
	if !strings.Contains(text, `,gfx_targets="gfx942,gfx950",`) || !strings.Contains(text, "\naorta_env_partial 1\n") ||
		!strings.Contains(text, "\naorta_env_partial_reasons 28\n") {
		t.Errorf("gfx targets or partial:\n%s", text)
	}
}

// TestMetricsHostileValues: quotes, backslashes and line feeds are
// escaped as the format requires; a control or bidi character, or a byte
// that is not UTF-8, is first written as visible.Escape writes it (so the
// label holds the characters \x1b, never a raw ESC that rewrites the
// terminal showing the file); a long value is bounded and stays distinct
// from another with the same beginning.
func TestMetricsHostileValues(t *testing.T) {
	long := strings.Repeat("é", 200)
	text := string(Metrics(doc(t, "A", "mi350-host.json",
		set("rocm.version", "7.2\"1\\x\ny"), set("hip.version", "a\xffb"),
		set("gpu_arch.gfx_targets", []any{"gfx942\x1b]0;owned\x07", "\u009b2J\u202e"}),
		set("host.kernel_release", long+"1"), set("pytorch_version", long+"2"))))
	checkExposition(t, text)
	for _, want := range []string{`rocm_version="7.2\"1\\x\\ny"`, `hip_version="a\\xffb"`, `gfx_targets="gfx942\\x1b]0;owned\\a,\\u009b2J\\u202e"`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in:\n%s", want, text)
		}
	}
	if i := strings.IndexFunc(text, func(r rune) bool { return r != '\n' && !visible.Shown(r) }); i >= 0 {
		t.Errorf("a raw control or bidi character at byte %d: %q", i, text[max(0, i-40):i+4])
	}
	a, b := boundValue(long+"1"), boundValue(long+"2")
	if a == b || len(a) > LabelValueMax || !utf8.ValidString(a) || !strings.Contains(text, `kernel_release="`+a+`"`) {
		t.Errorf("bounded values %q and %q", a, b)
	}
}

// gpusBlock is a probe_provenance.gpus of two MI300X in CPX/NPS4, the
// second trained at x8 and 16 GT/s, written from the schema's own types.
func gpusBlock() *schema.GPUs {
	i := func(v int) *int { return &v }
	s := func(v string) *string { return &v }
	vram := int64(206141652992)
	dev := func(pci, uid string, width int, speed string) schema.GPUDevice {
		d := schema.GPUDevice{UniqueID: s(uid), PCI: s(pci), GfxTarget: s("gfx942"), ProductName: s("AMD Instinct MI300X"),
			VBIOSVersion: s("113-M3000100-102"), VRAMBytes: &vram, ComputePartition: s("CPX"), MemoryPartition: s("NPS4"),
			PCIe: schema.GPUPCIe{CurrentLinkSpeed: s(speed), CurrentLinkWidth: i(width), MaxLinkSpeed: s("32.0 GT/s PCIe"), MaxLinkWidth: i(16)}}
		for n := range 8 {
			d.Partitions = append(d.Partitions, schema.GPUPartition{Node: n + 1})
		}
		return d
	}
	return &schema.GPUs{PhysicalCount: i(2), PartitionCount: i(16), ComputePartition: s("CPX"), MemoryPartition: s("NPS4"),
		Devices: []schema.GPUDevice{dev("0000:0c:00.0", "1234567890123456789", 16, "32.0 GT/s PCIe"), dev("0000:22:00.0", "42", 8, "16.0 GT/s PCIe")}}
}

func TestMetricsGPUs(t *testing.T) {
	text := string(Metrics(doc(t, "A", "mi350-host.json", set("probe_provenance.gpus", gpusBlock()))))
	checkExposition(t, text)
	for _, want := range []string{
		`aorta_gpu_info{pci="0000:0c:00.0",unique_id="1234567890123456789",gfx="gfx942",product="AMD Instinct MI300X",vbios="113-M3000100-102",compute_partition="CPX",memory_partition="NPS4"} 1`,
		`aorta_gpu_info{pci="0000:22:00.0",unique_id="42",gfx="gfx942",product="AMD Instinct MI300X",vbios="113-M3000100-102",compute_partition="CPX",memory_partition="NPS4"} 1`,
		`aorta_gpu_partitions{pci="0000:22:00.0"} 8`,
		`aorta_gpu_vram_bytes{pci="0000:0c:00.0"} 206141652992`,
		`aorta_gpu_pcie_link_width_lanes{pci="0000:22:00.0"} 8`,
		`aorta_gpu_pcie_link_max_width_lanes{pci="0000:22:00.0"} 16`,
		`aorta_gpu_pcie_link_speed_transfers_per_second{pci="0000:22:00.0"} 16000000000`,
		`aorta_gpu_pcie_link_max_speed_transfers_per_second{pci="0000:22:00.0"} 32000000000`,
	} {
		if !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("no line %s in\n%s", want, text)
		}
	}
	if strings.Count(text, "\naorta_gpu_") != 2*7 {
		t.Errorf("%d GPU samples, want 2 GPUs × 7 families:\n%s", strings.Count(text, "\naorta_gpu_"), text)
	}
	// Without the block: the families, no samples.
	text = string(Metrics(doc(t, "B", "mi350-host.json", withoutGPUs)))
	if strings.Contains(text, "\naorta_gpu_") || !strings.Contains(text, "# TYPE aorta_gpu_info gauge\n") {
		t.Errorf("GPU families without a gpus block:\n%s", text)
	}
}

// withoutGPUs drops probe_provenance.gpus where the document has one.
func withoutGPUs(t testing.TB, m testdoc.Object) testdoc.Object {
	if v, ok := lookup(m, []string{"probe_provenance", "gpus"}); ok && v != nil {
		return del("probe_provenance.gpus")(t, m)
	}
	return m
}

// k8sLabelValue is Kubernetes' label value rule (validation.IsValidLabelValue).
var k8sLabelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{
		"7.2.1": "7.2.1", "": "", "2.9.1+rocm7.2.1": "2.9.1_rocm7.2.1", "-_.x._-": "x", "gfx90a:sramecc+:xnack-": "gfx90a_sramecc__xnack",
		"ünï": "n", "a b/c": "a_b_c", "---": "",
		strings.Repeat("a", 63): strings.Repeat("a", 63),
	} {
		if got := LabelValue(in); got != want {
			t.Errorf("LabelValue(%q) = %q, want %q", in, got, want)
		}
	}
	a, b := LabelValue(strings.Repeat("a", 64)), LabelValue(strings.Repeat("a", 65))
	if a == b || len(a) > 63 || !k8sLabelValue.MatchString(a) {
		t.Errorf("long values %q, %q", a, b)
	}
}

func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"7.2.1", "2.9.1+rocm", "-", strings.Repeat("x.", 40), "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v := LabelValue(s); len(v) > 63 || !k8sLabelValue.MatchString(v) {
			t.Fatalf("LabelValue(%q) = %q", s, v)
		}
	})
}

// TestLabels: the stable set, in order, every value valid; the
// partition modes and the physical GPU count from a gpus block; the
// fingerprint follows the software groups, not the host's.
func TestLabels(t *testing.T) {
	names := func(ls []Label) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.Name)
			if !k8sLabelValue.MatchString(l.Value) || len(l.Value) > 63 {
				t.Errorf("%s=%q is no label value", l.Name, l.Value)
			}
		}
		return out
	}
	want := []string{"rocm-version", "hip-version", "gfx-targets", "gpu-count", "compute-partition", "memory-partition",
		"driver-version", "container-runtime", "torch-version", "env-fingerprint", "tuning-deviations"}
	for i := range want {
		want[i] = LabelPrefix + want[i]
	}
	plain := Labels(doc(t, "A", "mi350-host.json", withoutGPUs))
	if got := names(plain); !slices.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	value := func(ls []Label, name string) string {
		for _, l := range ls {
			if l.Name == LabelPrefix+name {
				return l.Value
			}
		}
		return "(none)"
	}
	if value(plain, "gpu-count") != "8" || value(plain, "rocm-version") != "7.2.1" || value(plain, "compute-partition") != "" {
		t.Errorf("labels of mi350-host.json: %v", plain)
	}
	gpus := Labels(doc(t, "B", "mi350-host.json", set("probe_provenance.gpus", gpusBlock())))
	if value(gpus, "gpu-count") != "2" || value(gpus, "compute-partition") != "CPX" || value(gpus, "memory-partition") != "NPS4" {
		t.Errorf("labels with a gpus block: %v", gpus)
	}
	host := Labels(doc(t, "C", "mi350-host.json", withoutGPUs, set("host.glibc_version", "2.39")))
	knob := Labels(doc(t, "D", "mi350-host.json", withoutGPUs, set("env_vars.HSA_XNACK", "1")))
	if value(host, "env-fingerprint") != value(plain, "env-fingerprint") || value(knob, "env-fingerprint") == value(plain, "env-fingerprint") {
		t.Errorf("env-fingerprint: plain %s, host edit %s, knob edit %s", value(plain, "env-fingerprint"), value(host, "env-fingerprint"), value(knob, "env-fingerprint"))
	}
	file := string(FeatureFile(plain))
	if !strings.HasPrefix(file, "# ") || !strings.Contains(file, "\naorta-probe.rocm-version=7.2.1\n") || strings.Count(file, "\n") != len(want)+1 {
		t.Errorf("feature file:\n%s", file)
	}
}

// FuzzMetrics: whatever document parses renders as valid exposition text
// and valid labels.
func FuzzMetrics(f *testing.F) {
	real, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "docker-container.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(real))
	f.Add(`{"schema_version": "1.16", "rocm": {"version": "a\"\\\n"}, "env_vars": {"HSA_XNACK": {"x": 1}}, "captured_at": 5}`)
	f.Add(`{"schema_version": "1.16", "probe_provenance": {"duration_us": -1e400, "gpus": {"devices": [{"pci": null, "pcie": {"max_link_speed": "NaN GT/s"}, "partitions": 3}, 7]}}}`)
	// A tuning block of odd shapes: counts that are not numbers, state
	// objects nested, a deviation that is not an object.
	f.Add(`{"schema_version": "1.16", "probe_provenance": {"tuning": {"checked": "x", "deviations": [7, {"setting": ["a"], "guide": "g\u001b"}], ` +
		`"state": {"gpus": [{"pci": 1, "values": {"ras_err_counts": {"umc": {"ue": 1e400, "ce": -2}, "gfx": 3}, "a_count": {"b": {"c": 1}}, "x": "y"}}, null]}}}}`)
	f.Fuzz(func(t *testing.T, text string) {
		d, err := Parse("x.json", text)
		if err != nil {
			return
		}
		checkExposition(t, string(Metrics(d)))
		for _, l := range Labels(d) {
			if !k8sLabelValue.MatchString(l.Value) || len(l.Value) > 63 {
				t.Fatalf("%s=%q", l.Name, l.Value)
			}
		}
	})
}

// BenchmarkMetrics and BenchmarkLabels: one document (the largest golden
// scenario, mi350-host.json, 45 KB) to the exposition text and to the
// feature file; each walks the document once for the fingerprints.
func BenchmarkMetrics(b *testing.B) {
	d := doc(b, "A", "mi350-host.json")
	b.ReportAllocs()
	for b.Loop() {
		Metrics(d)
	}
}

func BenchmarkLabels(b *testing.B) {
	d := doc(b, "A", "mi350-host.json")
	b.ReportAllocs()
	for b.Loop() {
		FeatureFile(Labels(d))
	}
}

// TestFingerprintsHardware: the hardware group's hash follows
// probe_provenance.gpus as diff ranks it: another partition mode changes
// it (and gpu_arch's, which the enumerator then reports otherwise), the
// same GPUs on another node (other serials and addresses) change nothing.
func TestFingerprintsHardware(t *testing.T) {
	base := doc(t, "A", "mi350-host.json", setGPUs(gpus(t, "CPX")))
	changed := func(other *Document) []Group {
		var got []Group
		fa, fb := Fingerprints(base), Fingerprints(other)
		for i := range fa {
			if fa[i] != fb[i] {
				got = append(got, fa[i].Group)
			}
		}
		return got
	}
	if got := changed(doc(t, "B", "mi350-host.json", setGPUs(gpus(t, "SPX")))); !slices.Equal(got, []Group{GroupHardware}) {
		t.Errorf("CPX -> SPX changed %v, want [hardware]", got)
	}
	if got := changed(doc(t, "B", "mi350-host.json", setGPUs(gpusOnNode(t, 1, "CPX")))); got != nil {
		t.Errorf("the same GPUs on another node changed %v, want none", got)
	}
}
