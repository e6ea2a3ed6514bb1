package triage

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/testdoc"
	"aorta-probe/internal/visible"
	"aorta-probe/schema"
)

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
