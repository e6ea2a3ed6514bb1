package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/fleetgen"
)

// The fleet and the refusals of diff through the static binary (issue 28,
// docs/triage.md "Fleet"): real-shaped documents (internal/fleetgen: every
// per-node field of its own), a fleet split in two whose groups' names
// stop at "… and N more" unless --all, the places cut the same way, "1
// document", a fleet where every document fails (a few stderr lines and
// one summary line, not one per file), and JSON values that are no env
// document (exit 2, one line, in validate's words).

// fleetTemplateFile is fleetgen.Template over the golden
// rocm-classic-7.2.json with plants.
func fleetTemplateFile(t *testing.T, plants map[string]any) []byte {
	t.Helper()
	base, err := os.ReadFile(filepath.Join("testdata", "golden", "rocm-classic-7.2.json"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := fleetgen.Template(base, 0, plants)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func TestE2EDiffFleet(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	tmpl := fleetTemplateFile(t, nil)
	other := fleetTemplateFile(t, map[string]any{"rocm.version": "7.1.0"})

	t.Run("groups and --all", func(t *testing.T) {
		dir := t.TempDir()
		planted := map[int][]byte{}
		for i := 5; i < 10; i++ {
			planted[i] = other
		}
		if err := fleetgen.Write(dir, 10, tmpl, planted); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", dir))
		name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("node-%04d.json", i)) }
		cut := name(0) + ", " + name(1) + ", " + name(2) + ", … and 2 more (--all lists them)"
		if code != 1 || errs != "" || !strings.HasPrefix(out, "fleet: 10 documents, 0 outliers, no majority: 2 groups\n") ||
			!strings.Contains(strings.Join(strings.Fields(out), " "), cut) {
			t.Errorf("exit %d, stderr %q, want 1 and groups cut as %q:\n%s", code, errs, cut, out)
		}
		code, out, _ = runCmd(t, exec.Command(bin, "diff", "--fleet", "--all", dir))
		words := strings.Join(strings.Fields(out), " ")
		if code != 1 || strings.Contains(out, "more (--all") ||
			!strings.Contains(words, strings.Join([]string{name(0), name(1), name(2), name(3), name(4)}, ", ")) ||
			!strings.Contains(words, strings.Join([]string{name(5), name(6), name(7), name(8), name(9)}, ", ")) {
			t.Errorf("--all: exit %d, want every name of both groups:\n%s", code, out)
		}
		code, _, errs = runCmd(t, exec.Command(bin, "diff", "--all", name(0), name(1)))
		if code != 2 || errs != "aorta-probe diff: --all needs --fleet\nTry 'aorta-probe diff --help' for help.\n" {
			t.Errorf("--all without --fleet: exit %d, stderr %q", code, errs)
		}
	})

	t.Run("places", func(t *testing.T) {
		// 80 documents, 8 per boot: 10 boots, a line each, cut after
		// the summary line and 7 boots.
		dir := t.TempDir()
		if err := fleetgen.Write(dir, 80, tmpl, nil); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", dir))
		if code != 0 || errs != "" || !strings.HasPrefix(out, "fleet: 80 documents, 0 outliers\n") ||
			!strings.Contains(out, "  - the documents come from 10 boots") ||
			strings.Count(out, "8 documents from 8 containers or namespaces") != 7 ||
			!strings.Contains(out, "  … and 3 more boots (--all lists them)\n") {
			t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
		}
		_, out, _ = runCmd(t, exec.Command(bin, "diff", "--fleet", "--all", dir))
		if n := strings.Count(out, "8 documents from 8 containers or namespaces"); n != 10 {
			t.Errorf("--all: %d boot lines, want 10:\n%s", n, out)
		}
	})

	t.Run("one document", func(t *testing.T) {
		dir := t.TempDir()
		if err := fleetgen.Write(dir, 1, tmpl, nil); err != nil {
			t.Fatal(err)
		}
		code, out, _ := runCmd(t, exec.Command(bin, "diff", "--fleet", dir))
		if code != 0 || !strings.HasPrefix(out, "fleet: 1 document, 0 outliers\n") || !strings.Contains(out, "1 document comes from one machine and boot") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})

	t.Run("every document fails", func(t *testing.T) {
		dir := t.TempDir()
		const n = 40
		for i := range n {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("bad-%02d.json", i)), []byte(`{"schema_version": "1.16"}`), 0o644)
		}
		code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", dir))
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		want := fmt.Sprintf("aorta-probe diff: none of the %d documents could be read (%d not shown; --all lists them)", n, n-3)
		if code != 2 || len(lines) != 4 || lines[3] != want ||
			lines[0] != "aorta-probe diff: "+filepath.Join(dir, "bad-00.json")+": not an aorta env document: $.captured_at: missing, and 38 more top-level keys of schema 1.16" {
			t.Errorf("exit %d, stderr (want 3 lines and %q):\n%s", code, want, errs)
		}
		if !strings.HasPrefix(out, "fleet: 0 documents, 0 outliers, 40 unreadable\n") ||
			strings.Count(strings.Join(strings.Fields(out), " "), "not an aorta env document") != 3 ||
			!strings.Contains(out, "… and 37 more unreadable (--all lists them)") {
			t.Errorf("report:\n%s", out)
		}
		_, _, errs = runCmd(t, exec.Command(bin, "diff", "--fleet", "--all", dir))
		if got := strings.Count(errs, "\n"); got != n+1 {
			t.Errorf("--all: %d stderr lines, want %d:\n%s", got, n+1, errs)
		}
	})
}

// TestE2EDiffNotADocument: any JSON with a schema_version is not an env
// document; diff refuses it with exit 2 and one line, as validate's test
// (jsonschema.CheckDocument) words it, and names a number for what it is.
func TestE2EDiffNotADocument(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, fleetgen.Node(fleetTemplateFile(t, nil), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, says string }{
		{`{"schema_version":"1.16"}`, "not an aorta env document: $.captured_at: missing, and 38 more top-level keys of schema 1.16"},
		{`{"schema_version": 1.16}`, "not an aorta env document: schema_version is a number (1.16), not a string"},
		{`{"schema_version": "1.16", "rocm": {}}`, "not an aorta env document: $.captured_at: missing, and 37 more top-level keys of schema 1.16"},
	} {
		p := filepath.Join(dir, "x.json")
		os.WriteFile(p, []byte(tc.text), 0o644)
		for _, args := range [][]string{{"diff", p, real}, {"diff", real, p}} {
			code, out, errs := runCmd(t, exec.Command(bin, args...))
			if want := "aorta-probe diff: " + p + ": " + tc.says + "\n"; code != 2 || out != "" || errs != want {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.text, args, code, out, errs, want)
			}
		}
	}
	// The real document is one: compared with itself, exit 0.
	if code, _, errs := runCmd(t, exec.Command(bin, "diff", real, real)); code != 0 {
		t.Errorf("real vs real: exit %d, stderr %q", code, errs)
	}
}
