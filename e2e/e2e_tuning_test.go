package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// TestE2ETuningScenarios runs the built binary over the tuning scenario
// roots as a user would (--summary, then the document): the brief's tuning
// line names the deviations with the guide's value, and the document's
// deviations name their guide (docs/tuning.md).
func TestE2ETuningScenarios(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	for _, tc := range []struct {
		scenario string
		brief    []string // fragments of the tuning line
		settings []string // the deviations' settings, in order
		guides   []string
	}{
		{"tuning-mi300x-guides", []string{"  tuning:    as AMD's guides recommend (18 checked)"}, nil, nil},
		{"tuning-mi300x-deviating",
			[]string{"  tuning:    4 off AMD's MI300X guides (18 checked): ", "numa_balancing=1 (guide: 0)",
				"cmdline_iommu_pt=absent (guide: iommu=pt on the kernel command line)", "iommu_gpu_group_type=DMA-FQ (guide: identity (iommu=pt))",
				"gpus.vis_vram_total_bytes=268435456 of 206158430208 bytes on 0000:a4:00.0 (guide: the whole VRAM CPU-visible"},
			[]string{"numa_balancing", "cmdline_iommu_pt", "iommu_gpu_group_type", "gpus.vis_vram_total_bytes"},
			[]string{"AMD Instinct MI300X system optimization", "AMD Instinct MI300X system optimization",
				"AMD Instinct IOMMU configuration (amdgpu-docs, iommu)", "AMD Instinct System Acceptance: BIOS settings"}},
		{"tuning-mi350x", []string{"  tuning:    1 off AMD's MI350X guides (19 checked): cmdline_pci_bfsort=absent (guide: pci=bfsort on the kernel command line)"},
			[]string{"cmdline_pci_bfsort"}, []string{"AMD Instinct System Acceptance: kernel parameters"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			root, dir := testtree.TempDir(t), t.TempDir()
			if _, err := fakeroot.Materialize(filepath.Join("testdata/roots", tc.scenario+".txtar"), root); err != nil {
				t.Fatal(err)
			}
			env := baseEnv(t)
			code, stdout, stderr := runProbe(t, bin, dir, env, "--summary", "--no-python", "--root", root)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			line := ""
			for _, l := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(l, "  tuning:") {
					line = l
				}
			}
			for _, f := range tc.brief {
				if !strings.Contains(line, f) {
					t.Errorf("tuning line %q\nlacks %q", line, f)
				}
			}
			out := filepath.Join(dir, "env.json")
			if code, _, stderr := runProbe(t, bin, dir, env, out, "--no-python", "--root", root); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			doc := checkDocument(t, string(b))
			devs, _ := field(doc, "probe_provenance.tuning.deviations").([]any)
			var settings, guides []string
			for _, d := range devs {
				m := d.(pyjson.Map[any])
				s, _ := m.Get("setting")
				g, _ := m.Get("guide")
				sec, _ := m.Get("section")
				settings, guides = append(settings, s.(string)), append(guides, g.(string))
				if sec == "" {
					t.Errorf("%s: no section", s)
				}
			}
			if !slices.Equal(settings, tc.settings) || !slices.Equal(guides, tc.guides) {
				t.Errorf("deviations %q from %q\nwant       %q from %q", settings, guides, tc.settings, tc.guides)
			}
		})
	}
}

// TestE2ETuningLive: on this machine the block reads the real values, as
// the test reads them itself: numa_balancing, the command line's iommu=pt,
// the active THP choice, the kernel release, the online CPUs.
func TestE2ETuningLive(t *testing.T) {
	bin := e2eBinary(t)
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Skipf("%s: %v (no such file on this machine)", p, err)
		}
		return strings.TrimSpace(string(b))
	}
	numa, cmdline, thp, release := read("/proc/sys/kernel/numa_balancing"), read("/proc/cmdline"),
		read("/sys/kernel/mm/transparent_hugepage/enabled"), read("/proc/sys/kernel/osrelease")
	dir := t.TempDir()
	code, stdout, stderr := runProbe(t, bin, dir, baseEnv(t), "--no-python", "--field", "probe_provenance.tuning.node")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("probe_provenance.tuning.node on this machine: %s", stdout)
	node, err := pyjson.Decode(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatal(err)
	}
	m := node.(pyjson.Map[any])
	get := func(k string) any { v, _ := m.Get(k); return v }
	if n, _ := strconv.Atoi(numa); get("numa_balancing") != pyjson.Number(strconv.Itoa(n)) {
		t.Errorf("numa_balancing %v, the file says %s", get("numa_balancing"), numa)
	}
	pt := slices.Contains(strings.Fields(cmdline), "iommu=pt")
	if get("cmdline_iommu_pt") != pt {
		t.Errorf("cmdline_iommu_pt %v, /proc/cmdline %q", get("cmdline_iommu_pt"), cmdline)
	}
	_, active, _ := strings.Cut(thp, "[")
	active, _, _ = strings.Cut(active, "]")
	if get("thp_enabled") != active {
		t.Errorf("thp_enabled %v, the file says %q", get("thp_enabled"), thp)
	}
	if get("kernel_release") != release {
		t.Errorf("kernel_release %v, the file says %q", get("kernel_release"), release)
	}
	if n, ok := get("online_cpus").(pyjson.Number); !ok || n == "0" {
		t.Errorf("online_cpus %v", get("online_cpus"))
	}
}

// TestE2ETuningState: --tuning-state adds the GPUs' state through the
// binary (the RAS counts, the current clock from the S: line), and the
// default run has none.
func TestE2ETuningState(t *testing.T) {
	bin := e2eBinary(t)
	root, dir := testtree.TempDir(t), t.TempDir()
	if _, err := fakeroot.Materialize("testdata/roots/tuning-mi300x-guides.txtar", root); err != nil {
		t.Fatal(err)
	}
	const path = "probe_provenance.tuning.state"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "null"},
		{[]string{"--tuning-state", "--field", path + ".gpus[0].values.ras_err_counts", "--field", path + ".gpus[7].values.sclk_current_mhz"},
			`{"gfx": {"ue": 0, "ce": 0}, "umc": {"ue": 0, "ce": 1}, "xgmi_wafl": {"ue": 0, "ce": 0}}` + "\n131"},
	} {
		args := append([]string{"--no-python", "--root", root}, tc.args...)
		if tc.args == nil {
			args = append(args, "--field", path)
		}
		code, stdout, stderr := runProbe(t, bin, dir, baseEnv(t), args...)
		if code != 0 || strings.TrimSpace(stdout) != tc.want {
			t.Errorf("%q: exit %d, %q (%s)\nwant %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
