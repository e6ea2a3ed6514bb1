package e2e

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
	"aorta-probe/internal/testtree"
	"aorta-probe/internal/visible"
)

// hostileSysfs are the strings issue 32 planted in amdgpu's sysfs: an
// OSC title-set ended by BEL, clear-screen, CR LF and a forged brief line,
// the C1 CSI U+009B and the right-to-left override U+202E.
var hostileSysfs = map[string]string{
	"vbios_version":            "113-D67301-063\x1b]0;owned\x07\x1b[2J\r\n  rocm:      FORGED 9.9",
	"product_name":             "AMD Instinct MI210\u009b2J\u202eX",
	"current_memory_partition": "NPS1\x1b[31m",
	"current_link_speed":       "16.0 GT/s PCIe\x07\r",
}

// hostileLink is the name every renderD*/device link of the second tree
// points to instead of its PCI device.
const hostileLink = "0000:03:00.0\x1b]0;link\x07\u202e"

// TestE2EHostileSysfsStrings (issue 32.2) runs the built binary over the
// real MI210 root (testdata/roots/gpus-mi210-xgmi-pcie.txtar) made
// hostile in the test: every GPU's vbios_version, product_name,
// current_memory_partition and current_link_speed hold the strings
// above (tree "strings"), or every render node's device link points to
// a name holding ESC, BEL and U+202E (tree "links"). --summary, diff (text,
// Markdown, JSON), diff --fleet (text, Markdown), metrics, validate's
// report on a file so named and a diff error on stderr show no raw
// control or bidi character; the brief has as
// many lines as the clean tree's, one rocm: line, and the planted
// vbios_version escaped; the documents keep the exact bytes.
func TestE2EHostileSysfsStrings(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := testtree.TempDir(t)
	env := baseEnv(t)
	clean, strs, links := hostileTrees(t, dir)
	summary := func(root string) string {
		code, out, errs := runProbe(t, bin, dir, env, "--root", root, "--no-python", "--summary")
		if code != 0 {
			t.Fatalf("--summary of %s: exit %d: %s", root, code, errs)
		}
		checkVisible(t, "--summary of "+filepath.Base(root), out+errs)
		return out
	}
	want := strings.Count(summary(clean), "\n")
	for _, root := range []string{strs, links} {
		out := summary(root)
		if n := strings.Count(out, "\n"); n != want {
			t.Errorf("--summary of %s: %d lines, the clean tree's %d:\n%s", filepath.Base(root), n, want, out)
		}
		if n := strings.Count(out, "\n  rocm:"); n != 1 {
			t.Errorf("--summary of %s: %d rocm: lines:\n%s", filepath.Base(root), n, out)
		}
	}
	if out := summary(strs); !strings.Contains(out, visible.Escape(hostileSysfs["vbios_version"])) {
		t.Errorf("--summary does not show the vbios_version escaped (%s):\n%s", visible.Escape(hostileSysfs["vbios_version"]), out)
	}

	docs := map[string]string{}
	for _, root := range []string{clean, strs, links} {
		p := filepath.Join(dir, filepath.Base(root)+".json")
		if code, _, errs := runProbe(t, bin, dir, env, "--root", root, "--no-python", p); code != 0 {
			t.Fatalf("capture of %s: exit %d: %s", root, code, errs)
		}
		docs[filepath.Base(root)] = p
	}
	if b, err := os.ReadFile(docs["strings"]); err != nil || !strings.Contains(string(b), `\u001b]0;owned\u0007\u001b[2J\r\n  rocm:      FORGED 9.9`) {
		t.Errorf("the document does not keep vbios_version's bytes (as JSON escapes): %v", err)
	}
	badName := filepath.Join(dir, "bad\x1b]0;t\x07\u202e.json")
	if err := os.WriteFile(badName, []byte(`{"schema_version": "1.16"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := [][]string{
		{"validate", badName},
		{"diff", docs["clean"], docs["strings"]},
		{"diff", "--format", "markdown", docs["clean"], docs["strings"]},
		{"diff", "--format", "json", docs["clean"], docs["strings"]},
		{"diff", docs["strings"], docs["links"]},
		{"diff", "--format", "markdown", docs["links"], docs["clean"]},
		{"diff", "--fleet", docs["clean"], docs["clean"], docs["strings"], docs["links"]},
		{"diff", "--fleet", "--format", "markdown", docs["clean"], docs["clean"], docs["strings"], docs["links"]},
		{"metrics", docs["strings"]},
		{"metrics", docs["links"]},
		{"diff", filepath.Join(dir, "no\x1b]0;such\x07\u202e.json"), docs["clean"]},
	}
	for _, args := range runs {
		code, out, errs := runCmd(t, exec.Command(bin, args...))
		name := visible.Escape(strings.Join(args[:len(args)-1], " "))
		if code == 2 && !strings.Contains(errs, `no\x1b]0;such\a\u202e.json`) || code > 2 {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
		checkVisible(t, name, out+errs)
	}
}

// hostileTrees expands the MI210 root three times under dir: as is, with
// hostileSysfs in every GPU's attributes ("strings"), and with every
// render node's device link pointing to hostileLink ("links").
func hostileTrees(t *testing.T, dir string) (clean, strs, links string) {
	t.Helper()
	tree := func(name string, edit func(root string)) string {
		root := filepath.Join(dir, name)
		if _, err := fakeroot.Materialize("testdata/roots/gpus-mi210-xgmi-pcie.txtar", root); err != nil {
			t.Fatal(err)
		}
		edit(root)
		return root
	}
	clean = tree("clean", func(string) {})
	strs = tree("strings", func(root string) {
		for _, dev := range gpuDevices(t, root) {
			for attr, v := range hostileSysfs {
				if err := os.WriteFile(filepath.Join(dev, attr), []byte(v+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	links = tree("links", func(root string) {
		n := 0
		for _, dev := range gpuDevices(t, root) {
			renders, _ := filepath.Glob(filepath.Join(dev, "drm", "renderD*", "device"))
			for _, l := range renders {
				if err := os.Remove(l); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("../../../"+hostileLink, l); err != nil {
					t.Fatal(err)
				}
				n++
			}
		}
		if n != 8 {
			t.Fatalf("%d render device links, want the MI210 root's 8", n)
		}
	})

	return clean, strs, links
}

// gpuDevices are the PCI device directories of root's GPUs: those with a
// vbios_version.
func gpuDevices(t *testing.T, root string) []string {
	t.Helper()
	var devs []string
	err := filepath.WalkDir(filepath.Join(root, "sys", "devices"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "vbios_version" {
			devs = append(devs, filepath.Dir(p))
		}
		return err
	})
	if err != nil || len(devs) != 8 {
		t.Fatalf("%d GPU devices under %s (%v), want 8", len(devs), root, err)
	}
	return devs
}

// checkVisible fails when out holds a raw control or bidi character other
// than the line feed.
func checkVisible(t *testing.T, name, out string) {
	t.Helper()
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && !visible.Shown(r) }); i >= 0 {
		t.Errorf("%s: a raw control or bidi character at byte %d: %q", name, i, out[max(0, i-60):min(len(out), i+20)])
	}
}

// TestE2ETextKeepsValues (issue 31.8) runs the built binary's diff over
// the golden rocm-classic-7.2 document and edits of it: a sha256 and a
// JSON list too long for their lines are printed whole on one line (they
// were broken at the column), a fleet field's line too long for the
// column keeps "(majority 2/3)" whole (it was cut to "(majority 2/…"), a
// fleet split in two shows a group's list whole after its long key, and
// Markdown shows a knob value holding a pipe and backticks in a code span
// that renders it exactly (the backticks were apostrophes).
func TestE2ETextKeepsValues(t *testing.T) {
	bin := e2eBinary(t)
	dir := testtree.TempDir(t)
	const menu = "tensile_catalog.hipblaslt.menu.combined_content_hash"
	hash := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	targets := []any{"gfx942", "gfx950", "gfx90a", "gfx1100", "gfx1101", "gfx1201", "gfx908", "gfx906", "gfx1030"}
	list := `["gfx942","gfx950","gfx90a","gfx1100","gfx1101","gfx1201","gfx908","gfx906","gfx1030"]`
	write := func(name string, edits ...testdoc.Edit) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pyjson.Encode(testdoc.Edited(t, "rocm-classic-7.2.json", edits...)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json")
	b := write("b.json", testdoc.Set("gpu_arch.gfx_targets", targets), testdoc.Set("hipblaslt.lib_hash", hash),
		testdoc.Set(menu, "content-sha256:"+strings.Repeat("fedcba9876543210", 4)), testdoc.Set("env_vars.HIP_VISIBLE_DEVICES", "0|1`x`"))
	c := write("c.json", testdoc.Set("gpu_arch.gfx_targets", targets))
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"diff", a, b}, []string{"\n        B: " + hash + "\n", "\n        B: " + list + "\n"}},
		{[]string{"diff", "--format", "markdown", a, b}, []string{"| `` 0\\|1`x` `` |", "| `" + hash + "` |"}},
		{[]string{"diff", "--fleet", a, a, b}, []string{"\n    " + menu + " [catalogs]\n      (majority 2/3)\n", "\n      node:     " + list + "\n"}},
		{[]string{"diff", "--fleet", a, a, c, c}, []string{"\n    gpu_arch.gfx_targets:\n      " + list + "\n"}},
	} {
		code, out, errs := runCmd(t, exec.Command(bin, tc.args...))
		name := strings.Join(tc.args[:len(tc.args)-2], " ")
		if code != 1 || errs != "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, out)
			}
		}
		if strings.Contains(out, "…") {
			t.Errorf("%s cut something:\n%s", name, out)
		}
	}
}

// valueLine reports whether a line of diff's text holds one value after
// its label ("      A: ", "      same: "), the only kind of line that may
// be wider than 80 columns: a value is never broken (docs/triage.md,
// "Formats").
func valueLine(l string) bool {
	label, _, ok := strings.Cut(strings.TrimLeft(l, " "), ": ")
	return ok && slices.Contains([]string{"A", "B", "same", "node", "majority"}, label)
}

// TestValueLine: the lines diff's text may hold wider than 80 columns.
func TestValueLine(t *testing.T) {
	for l, want := range map[string]bool{
		"      same: isolated: dockerenv, mnt_ns_not_initial, mnt_ns_differs_from_parent": true,
		"        B: sha256:0123456789abcdef":                                              true,
		"      node:     [\"SPX\"]":                                                       true,
		"      why: the ROCm release: compiler, runtime and every math library come from": false,
		"  - probe_namespace differs: A: mnt:1":                                           false,
	} {
		if valueLine(l) != want {
			t.Errorf("valueLine(%q) = %v", l, !want)
		}
	}
}
