package triage

import (
	"slices"
	"strings"
	"testing"
)

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

func BenchmarkLabels(b *testing.B) {
	d := doc(b, "A", "mi350-host.json")
	b.ReportAllocs()
	for b.Loop() {
		FeatureFile(Labels(d))
	}
}
