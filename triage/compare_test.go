package triage

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	_ "aorta-probe/internal/golden"
)

func keys(ds []Difference) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Key)
	}
	return out
}

// TestCompare is the verdict table over pairs of scenario documents the
// probe wrote, edited the way real places differ.
func TestCompare(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	cases := []struct {
		name    string
		a, b    []edit
		verdict string
		exit    int
		// because must be a substring of the first reason.
		because string
		// diffs are the identity differences, in rank order (nil: any).
		diffs []string
	}{
		{name: "identical", a: []edit{placed, proven}, b: []edit{placed, proven}, verdict: SamePlace, exit: 0, diffs: []string{}},
		{name: "identical, inode hashes only", a: []edit{placed}, b: []edit{placed}, verdict: SamePlace + Advisory, exit: 0, diffs: []string{}},
		{
			name: "noise only",
			a:    []edit{placed, proven},
			b: []edit{placed, proven, set("captured_at", "2030-01-01T00:00:00Z"),
				set("probe_provenance.duration_us", "7"), set("probe_provenance.commands", []any{"x"}),
				set("probe_provenance.started_at", "2030"), set("partial_reasons", []any{"r"}), set("partial", true),
				set("tensile_catalog.hipblaslt.menu.files", nil)},
			verdict: SamePlace, exit: 0, diffs: []string{},
		},
		{
			name: "no provenance on one side", a: []edit{placed, proven}, b: []edit{placed, del("probe_provenance")},
			verdict: SamePlace + Advisory, exit: 0, diffs: []string{},
		},
		// The kernel's proofs (docs/triage.md, "Verdicts").
		{
			name: "another boot", a: []edit{placed, proven}, b: []edit{placed, identityEdit("boot:bb", hostIDs, nil)},
			verdict: DifferentPlaces, exit: 1, because: "another machine or another boot",
		},
		{
			name: "reused inode, another mount namespace id", a: []edit{placed, proven},
			b:       []edit{placed, identityEdit("boot:aa", withIDs(map[string]string{"mnt": "4329"}), nil)},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another namespace: mnt",
		},
		{
			name: "another network namespace", a: []edit{placed, proven},
			b:       []edit{placed, identityEdit("boot:aa", withIDs(map[string]string{"net": "4400"}), nil)},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another namespace: net",
		},
		{
			name: "another container", a: []edit{placed, proven},
			b: []edit{placed, set("runtime_context.type", "docker"),
				identityEdit("boot:aa", withIDs(map[string]string{"mnt": "9", "net": "10", "pid": "11", "uts": "12", "ipc": "13", "cgroup": "14"}), nil)},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another container: mnt, net, pid, uts, ipc, cgroup",
		},
		{
			name: "local Buck2 action on the host: evidence never overrides the proof", a: []edit{placed, proven},
			b: []edit{placed, proven, set("probe_provenance.placement.suggests", "local_action"),
				set("probe_provenance.isolation.signals", []any{object{{Key: "name", Value: "net_ns_differs_from_ancestor"}, {Key: "fired", Value: true}}})},
			verdict: SamePlace, exit: 0, diffs: []string{},
		},
		{
			name:    "proof on one side only: inode hashes decide, advisory",
			a:       []edit{placed, identityEdit("boot:aa", hostIDs, []any{"mnt:1", "net:2"})},
			b:       []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1", "net:2"})},
			verdict: SamePlace + Advisory, exit: 0,
		},
		{
			name:    "older kernel, another network namespace inode",
			a:       []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1", "net:2"})},
			b:       []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1", "net:3"})},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another namespace: net",
		},
		{
			name: "another mount namespace", a: []edit{placed}, b: []edit{set("probe_namespace", "mnt:8021806755e296c7")},
			verdict: DifferentPlaces, exit: 1, because: "probe_namespace differs: another mount namespace", diffs: []string{},
		},
		{
			name: "namespace kinds differ", a: []edit{placed}, b: []edit{set("probe_namespace", "cgroup-ns:df6f66f8b34bb519")},
			verdict: CannotTell, exit: 1, because: "kinds differ (mnt vs cgroup-ns)",
		},
		{
			name: "namespace null", a: []edit{placed}, b: nil,
			verdict: CannotTell, exit: 1, because: "probe_namespace is null in B",
		},
		{
			name: "container_detected differs", a: []edit{placed}, b: []edit{placed, set("container_detected", false)},
			verdict: DifferentPlaces, exit: 1, because: "container_detected differs",
		},
		{
			name: "kfd differs", a: []edit{placed}, b: []edit{placed, set("amdgpu_driver.kfd_device_present", true)},
			verdict: DifferentPlaces, exit: 1, because: "kfd_device_present differs",
		},
		{
			name: "another kernel", a: []edit{placed}, b: []edit{placed, set("host.kernel_release", "6.8.0-50-generic")},
			verdict: DifferentPlaces, exit: 1, because: "host.kernel_release differs",
		},
		{
			name: "runtime type differs", a: []edit{placed}, b: []edit{placed, set("runtime_context.type", "podman")},
			verdict: DifferentPlaces, exit: 1, because: "runtime_context.type differs",
		},
		{
			name: "isolation evidence differs", a: []edit{placed},
			b:       []edit{placed, set("probe_provenance.isolation.signals", []any{object{{Key: "name", Value: "net_ns_differs_from_ancestor"}, {Key: "fired", Value: true}}})},
			verdict: CannotTell, exit: 1, because: "probe_provenance.isolation differs",
		},
		{
			name: "ranked software differences", a: []edit{placed, proven},
			b: []edit{placed, proven,
				set("host.glibc_version", "2.39"),
				set("env_vars.NCCL_NET_PLUGIN", "none"),
				set("env_vars.MY_SECRET", "x"), // off the canonical list: ignored
				set("pytorch_version", "2.9.0"),
				set("tensile_catalog.hipblaslt.menu.combined_content_hash", "content-sha256:00"),
				set("hipblaslt.lib_hash", "sha256:00"),
				set("gpu_arch.gfx_targets", []any{"gfx942"}),
				set("amdgpu_driver.package_version", "6.12"),
				set("rocm.version", "7.1.0"),
			},
			verdict: DifferentSoftware, exit: 1,
			diffs: []string{"rocm.version", "amdgpu_driver.package_version", "gpu_arch.gfx_targets", "hipblaslt.lib_hash",
				"tensile_catalog.hipblaslt.menu.combined_content_hash", "pytorch_version", "env_vars.NCCL_NET_PLUGIN", "host.glibc_version"},
		},
		{
			name: "catalog hashes before catalog status", a: []edit{placed, proven},
			b: []edit{placed, proven, set("tensile_catalog.status", "partial"), set("rocfft_catalog.kernel_cache.sha256", "sha256:00"),
				set("tensile_catalog.rocblas.menu.combined_content_hash", "content-sha256:00")},
			verdict: DifferentSoftware, exit: 1,
			diffs: []string{"tensile_catalog.rocblas.menu.combined_content_hash", "rocfft_catalog.kernel_cache.sha256", "tensile_catalog.status"},
		},
		{
			// A second install the loader takes rocBLAS from ranks with
			// the rocm group: after rocm.version and hip, before the driver.
			name: "another ROCm install behind the loader", a: []edit{placed, proven},
			b: []edit{placed, proven, set("amdgpu_driver.package_version", "6.12"),
				set("probe_provenance.rocm_installs.loader", []any{object{{Key: "library", Value: "librocblas.so"}, {Key: "install", Value: "/usr"}}}),
				set("hip.version", "7.2.0"), set("probe_provenance.duration_us", "7")},
			verdict: DifferentSoftware, exit: 1,
			diffs: []string{"hip.version", "probe_provenance.rocm_installs.loader", "amdgpu_driver.package_version"},
		},
		{
			name: "rocm_installs on one side only", a: []edit{placed, proven}, b: []edit{placed, proven, del("probe_provenance.rocm_installs")},
			verdict: SamePlace, exit: 0, diffs: []string{},
		},
		// The root (identity.root): a chroot shares every namespace.
		{
			name: "same root", a: []edit{placed, proven, hostRoot}, b: []edit{placed, proven, hostRoot},
			verdict: SamePlace, exit: 0, diffs: []string{},
		},
		{
			name: "chroot: the same mount, another root directory", a: []edit{placed, proven, hostRoot},
			b:       []edit{placed, proven, rootEdit(n("2147483649"), "STATX_MNT_ID_UNIQUE", "259:1", n("1835009"))},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another root",
		},
		{
			name: "another root mount, every namespace shared", a: []edit{placed, proven, hostRoot},
			b:       []edit{placed, proven, rootEdit(n("2147483700"), "STATX_MNT_ID_UNIQUE", "0:52", n("1"))},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another root",
		},
		{
			name: "another namespace and another root: the namespace is named", a: []edit{placed, proven, hostRoot},
			b: []edit{placed, identityEdit("boot:aa", withIDs(map[string]string{"mnt": "4329"}), nil),
				rootEdit(n("2147483700"), "STATX_MNT_ID_UNIQUE", "259:1", n("2"))},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another namespace: mnt",
		},
		{
			name: "root on one side only (an older aorta-probe)", a: []edit{placed, proven, hostRoot}, b: []edit{placed, proven},
			verdict: SamePlace, exit: 0, diffs: []string{},
		},
		{
			name: "older kernel, a chroot: device and inode differ",
			a:    []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1", "net:2"}), rootEdit(n("23"), "STATX_MNT_ID", "259:1", n("2"))},
			b: []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1", "net:2"}),
				rootEdit(n("23"), "STATX_MNT_ID", "259:1", n("1835009"))},
			verdict: DifferentPlaces, exit: 1, because: "same machine and boot, another root (device and inode)",
		},
		{
			name:    "older kernel, the same root: advisory",
			a:       []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1", "net:2"}), rootEdit(n("23"), "STATX_MNT_ID", "259:1", n("2"))},
			b:       []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1", "net:2"}), rootEdit(n("23"), "STATX_MNT_ID", "259:1", n("2"))},
			verdict: SamePlace + Advisory, exit: 0,
		},
		{
			name: "schema 1.7 document", a: append([]edit{placed}, schema17...), b: []edit{placed},
			verdict: CannotTell, exit: 1, because: "is absent in A",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := doc(t, "a.json", g, c.a...), doc(t, "b.json", g, c.b...)
			r := Compare(a, b)
			if r.Verdict != c.verdict || r.ExitCode() != c.exit {
				t.Fatalf("verdict %q exit %d, want %q exit %d; because %q; diffs %q", r.Verdict, r.ExitCode(), c.verdict, c.exit, r.Because, keys(r.Differences))
			}
			if c.because != "" && (len(r.Because) == 0 || !strings.Contains(r.Because[0], c.because)) {
				t.Errorf("because %q, want %q first", r.Because, c.because)
			}
			if c.diffs != nil && !slices.Equal(append([]string{}, keys(r.Differences)...), c.diffs) {
				t.Errorf("differences %q, want %q", keys(r.Differences), c.diffs)
			}
			checkRenders(t, r)
		})
	}
}

// checkRenders renders every format: text fits 80 columns without
// colour, JSON parses and carries the verdict.
func checkRenders(t *testing.T, r *Result) {
	t.Helper()
	var text bytes.Buffer
	if err := r.Text(&text, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWidth(t, text.String())
	if first, _, _ := strings.Cut(text.String(), "\n"); !strings.HasPrefix(first, r.Verdict) {
		t.Errorf("first line %q does not start with the verdict %q", first, r.Verdict)
	}
	var js bytes.Buffer
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Format      string           `json:"format"`
		Verdict     string           `json:"verdict"`
		ExitStatus  int              `json:"exit_status"`
		Differences []map[string]any `json:"differences"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("--format json is not JSON: %v\n%s", err, js.String())
	}
	if got.Format != JSONFormat || got.Verdict != r.Verdict || got.ExitStatus != r.ExitCode() || len(got.Differences) != len(r.Differences) {
		t.Errorf("json result %+v disagrees with %q/%d/%d differences", got, r.Verdict, r.ExitCode(), len(r.Differences))
	}
	var md bytes.Buffer
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "**Verdict: "+r.Verdict+"**") {
		t.Errorf("markdown starts %q", md.String()[:min(60, md.Len())])
	}
}

func checkWidth(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, "\x1b") {
		t.Errorf("colour escape in uncoloured output")
	}
	for i, line := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(line); n > Width && !unbroken(line) {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
}

// unbroken reports whether a line wider than Width holds one value,
// whole, as valueLines writes it: after the indentation, a value's label
// (A:, B:, node:, majority:, same:, or a key) and the value, or one word
// alone. Prose (why:, evidence:, reasons) always fits.
func unbroken(line string) bool {
	rest := strings.TrimLeft(line, " ")
	label, _, ok := strings.Cut(rest, ": ")
	switch {
	case !ok:
		return !strings.Contains(rest, " ")
	case strings.Contains(label, " ") || label == "why" || label == "evidence":
		return false
	}
	return true
}

// TestCompareRealScenarios compares every pair of scenario documents:
// nothing panics, text fits 80 columns, and the verdict is one of four.
func TestCompareRealScenarios(t *testing.T) {
	names := []string{"mi350-host.json", "docker-container.json", "unshare-m-behind-shell.json", "k8s-pod.json", "rocm-wheel-7.15.json", "empty.json"}
	for _, x := range names {
		for _, y := range names {
			r := Compare(doc(t, x, x), doc(t, y, y))
			if !slices.Contains([]string{SamePlace, SamePlace + Advisory, DifferentPlaces, DifferentSoftware, DifferentSoftware + Advisory, CannotTell}, r.Verdict) {
				t.Errorf("%s vs %s: verdict %q", x, y, r.Verdict)
			}
			checkRenders(t, r)
		}
	}
}

// TestSchema17AbsentKeys: keys a 1.7 document lacks read "absent", and
// the text says so for the side that lacks them.
func TestSchema17AbsentKeys(t *testing.T) {
	old := doc(t, "old.json", "rocm-classic-7.2.json", append([]edit{placed}, schema17...)...)
	r := Compare(old, doc(t, "new.json", "rocm-classic-7.2.json", placed))
	var found bool
	for _, d := range r.Differences {
		if d.Key == "therock" {
			found = true
			if d.A.Present || !d.B.Present {
				t.Errorf("therock: A %+v B %+v, want absent in A only", d.A, d.B)
			}
		}
	}
	if !found {
		t.Errorf("no therock difference in %q", keys(r.Differences))
	}
	var text bytes.Buffer
	r.Text(&text, RenderOptions{})
	for _, want := range []string{"probe_namespace is absent in A (an older schema)", "A: absent", "old.json (schema 1.7, no probe_provenance)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"", "x.json: not JSON: Expecting value: line 1 column 1 (char 0)"},
		{"garbage", "x.json: not JSON: Expecting value: line 1 column 1 (char 0)"},
		{`{"a": 1,}`, "x.json: not JSON: Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"},
		{`[1]`, "x.json: not an aorta env document: the top level is an array, not an object"},
		{`{"host": {}}`, "x.json: not an aorta env document: no schema_version"},
		{`{"schema_version": "2.0"}`, `x.json: not an aorta env document: schema_version "2.0" is not 1.x`},
		{`{"schema_version": 1.16}`, `x.json: not an aorta env document: schema_version is a number (1.16), not a string`},
		// Any JSON object with a schema_version is no env document
		// (issue 28): the top-level keys of its schema must be there.
		{`{"schema_version": "1.16"}`, `x.json: not an aorta env document: $.captured_at: missing, and 38 more top-level keys of schema 1.16`},
		{strings.Replace(minimal10, `"hip": null, `, "", 1), `x.json: not an aorta env document: $.hip: missing`},
	}
	for _, c := range cases {
		_, err := Parse("x.json", c.text)
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.text, err, c.want)
		}
	}
	// A minimal 1.x document (every block null) is accepted and
	// compared without a crash.
	d, err := Parse("min.json", minimal10)
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(d, d); r.Verdict != CannotTell {
		t.Errorf("minimal documents: %q", r.Verdict)
	}
}

// TestEvidenceTexts: the two texts that misled. Fired signals that are
// all about the mount namespace say so (the ids and probe_namespace cover
// it), others are named by side; a container id on one side only is not
// "another container id".
func TestEvidenceTexts(t *testing.T) {
	sig := func(names ...string) edit {
		var list []any
		for _, n := range names {
			list = append(list, object{{Key: "name", Value: n}, {Key: "fired", Value: true}})
		}
		return set("probe_provenance.isolation.signals", list)
	}
	says := func(r *Result, key string) string {
		for _, p := range r.Placement {
			if p.Key == key {
				return p.Says
			}
		}
		return ""
	}
	const g = "rocm-classic-7.2.json"
	r := Compare(doc(t, "a", g, placed, sig()), doc(t, "b", g, placed, sig("mnt_ns_differs_from_parent", "mnt_ns_differs_from_ancestor")))
	if got, want := says(r, "probe_provenance.isolation"), "fired in B only: mnt_ns_differs_from_parent, mnt_ns_differs_from_ancestor (another mount namespace: the namespace ids and probe_namespace say it)"; got != want {
		t.Errorf("mount-only signals: %q, want %q", got, want)
	}
	r = Compare(doc(t, "a", g, placed, sig("dockerenv")), doc(t, "b", g, placed, sig("net_ns_differs_from_ancestor")))
	if got, want := says(r, "probe_provenance.isolation"), "fired in A only: dockerenv; fired in B only: net_ns_differs_from_ancestor"; got != want {
		t.Errorf("other signals: %q, want %q", got, want)
	}
	withID := set("docker", object{{Key: "container_id", Value: "0123456789abcdef"}})
	r = Compare(doc(t, "a", g, placed, withID), doc(t, "b", g, placed))
	if got, want := says(r, "docker.container_id"), "a container id in the cgroup path on A only"; got != want {
		t.Errorf("one-sided container id: %q, want %q", got, want)
	}
	r = Compare(doc(t, "a", g, placed, withID), doc(t, "b", g, placed, set("docker", object{{Key: "container_id", Value: "fedcba9876543210"}})))
	if got, want := says(r, "docker.container_id"), "another container id in the cgroup path"; got != want {
		t.Errorf("two container ids: %q, want %q", got, want)
	}
}
