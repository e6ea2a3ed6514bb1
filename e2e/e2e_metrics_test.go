package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestE2EMetricsLabels: aorta-probe metrics and labels through the static
// binary (docs/fleet.md): from DOC, from standard input and from a fresh
// capture (a replayed capture archive, with the capture's flags) alike;
// OUT written, not a .prom refused; capture flags beside DOC, the
// capture's own outputs and extra arguments are usage errors; an
// unwritable OUT is exit 1 and one line.
func TestE2EMetricsLabels(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	archive, err := filepath.Abs("testdata/roots/capture-host.txtar")
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "node.json")
	if code, _, errs := runProbe(t, bin, dir, env, "--root", archive, "--no-python", doc); code != 0 {
		t.Fatalf("capture: exit %d\n%s", code, errs)
	}
	// stable drops the lines that describe the capture, not the place.
	stable := func(text string) string {
		return regexp.MustCompile(`(?m)^aorta_env_(captured_timestamp|capture_duration)_seconds .*\n`).ReplaceAllString(text, "")
	}

	for _, cmd := range []string{"metrics", "labels"} {
		t.Run(cmd, func(t *testing.T) {
			code, fromDoc, errs := runProbe(t, bin, dir, env, cmd, doc)
			if code != 0 || errs != "" || fromDoc == "" {
				t.Fatalf("%s DOC: exit %d, stderr %q", cmd, code, errs)
			}
			in := exec.Command(bin, cmd, "-")
			in.Dir, in.Env = dir, env
			f, _ := os.Open(doc)
			defer f.Close()
			in.Stdin = f
			if code, fromStdin, errs := runCmd(t, in); code != 0 || fromStdin != fromDoc {
				t.Errorf("%s -: exit %d, stderr %q, output differs from DOC's:\n%s", cmd, code, errs, fromStdin)
			}
			out := filepath.Join(dir, map[string]string{"metrics": "node.prom", "labels": "aorta-probe"}[cmd])
			code, _, errs = runProbe(t, bin, dir, env, cmd, "--root", archive, "--no-python", "-o", out)
			written, _ := os.ReadFile(out)
			if code != 0 || stable(string(written)) != stable(fromDoc) {
				t.Errorf("%s from a fresh capture: exit %d, stderr %q; differs from DOC's:\n%s\n---\n%s", cmd, code, errs, written, fromDoc)
			}
			if code, _, errs := runProbe(t, bin, dir, env, cmd, doc, filepath.Join(dir, "missing", "x.prom")); code != 1 ||
				!strings.HasPrefix(errs, "aorta-probe "+cmd+": failed to write ") || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s to a missing directory: exit %d, stderr %q; want 1 and one line", cmd, code, errs)
			}
			bad := filepath.Join(dir, "bad.json")
			os.WriteFile(bad, []byte(`{"schema_version": 2}`), 0o644)
			if code, stdout, errs := runProbe(t, bin, dir, env, cmd, bad); code != 1 || stdout != "" ||
				!strings.HasPrefix(errs, "aorta-probe "+cmd+": "+bad+": not an aorta env document") || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s on no document: exit %d, stdout %q, stderr %q; want 1 and one line", cmd, code, stdout, errs)
			}
			if code, usage, _ := runProbe(t, bin, dir, env, "help", cmd); code != 0 || !strings.HasPrefix(usage, "Usage: aorta-probe "+cmd+" [DOC|-] [OUT] [flags]\n") {
				t.Errorf("help %s: exit %d\n%s", cmd, code, usage)
			}
			for _, args := range [][]string{
				{doc, "--no-python"},
				{doc, "--root", archive},
				{"--summary"},
				{"--field", "rocm.version"},
				{"--out-dir", dir},
				{doc, filepath.Join(dir, "a.prom"), "extra"},
				{doc, filepath.Join(dir, "a.prom"), "-o", filepath.Join(dir, "b.prom")},
				{""},
				{"--no-such-flag"},
				{"--root", filepath.Join(dir, "missing")},
			} {
				code, stdout, errs := runProbe(t, bin, dir, env, append([]string{cmd}, args...)...)
				if code != 2 || stdout != "" || !strings.HasPrefix(errs, "aorta-probe "+cmd+": ") || !strings.HasSuffix(errs, "Try 'aorta-probe "+cmd+" --help' for help.\n") {
					t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want a usage error", cmd, args, code, stdout, errs)
				}
			}
		})
	}
	code, _, errs := runProbe(t, bin, dir, env, "metrics", doc, filepath.Join(dir, "node.txt"))
	if code != 2 || !strings.Contains(errs, "must end in .prom") {
		t.Errorf("metrics to node.txt: exit %d, stderr %q; want a usage error", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "node.txt")); err == nil {
		t.Error("node.txt written")
	}
}
