package triage

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCollectEnvNames(t *testing.T) {
	e := CollectEnvNames([]string{"PATH=/usr/bin", "TOKEN=s3cret=x", "BUCK_SCRATCH_PATH=buck-out/tmp", "EMPTY=", "NOEQ", "=odd", "PATH=/dup", "BUCK_BUILD_ID=b1d"})
	if want := []string{"BUCK_BUILD_ID", "BUCK_SCRATCH_PATH", "EMPTY", "NOEQ", "PATH", "TOKEN"}; !slices.Equal(e.Names, want) {
		t.Errorf("names %q, want %q", e.Names, want)
	}
	if len(e.Markers) != 2 || e.Markers["BUCK_SCRATCH_PATH"] != "buck-out/tmp" || e.Markers["BUCK_BUILD_ID"] != "b1d" {
		t.Errorf("markers %v", e.Markers)
	}
}

func TestDiffEnvMarkers(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, env []string) string {
		p := filepath.Join(dir, name)
		b, err := json.MarshalIndent(CollectEnvNames(env), "", "  ")
		if err == nil {
			err = os.WriteFile(p, append(b, '\n'), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	local := write("local.json", []string{"PATH=/bin", "BUCK2_DAEMON_UUID=u", "BUCK_SCRATCH_PATH=buck-out/a", "TMPDIR=/tmp/x"})
	remote := write("remote.json", []string{"PATH=/bin", "RE_WORKER_ID=w", "BUCK_SCRATCH_PATH=buck-out/b", "TMPDIR=/tmp/y"})
	code, out, errs := runMain([]string{"--env-markers", local, remote}, false)
	want := "variable names differ: 1 only in A, 1 only in B, 3 in both\nA: " + local + "\nB: " + remote +
		"\n\nOnly in A\n  BUCK2_DAEMON_UUID\n\nOnly in B\n  RE_WORKER_ID\n\nMarker values that differ\n  BUCK_SCRATCH_PATH: \"buck-out/a\" -> \"buck-out/b\"\n"
	if code != 1 || out != want || errs != "" {
		t.Errorf("exit %d\n%s\nwant\n%s%s", code, out, want, errs)
	}
	// --format markdown, which --env-markers does not offer, is the text.
	if code, md, _ := runMain([]string{"--env-markers", "--format", "markdown", local, remote}, false); code != 1 || md != want {
		t.Errorf("markdown: exit %d\n%s\nwant the text\n%s", code, md, want)
	}
	if code, out, _ := runMain([]string{"--env-markers", local, local}, false); code != 0 || !strings.HasPrefix(out, "same variable names (4)") {
		t.Errorf("same: exit %d %s", code, out)
	}
	if code, out, _ := runMain([]string{"--env-markers", "--format", "json", local, remote}, false); code != 1 || !strings.Contains(out, `"only_in_b": [
    "RE_WORKER_ID"
  ]`) {
		t.Errorf("json: exit %d %s", code, out)
	}
	// An env.json is not an env-names document: exit 2, one line.
	envjson := writeDoc(t, dir, "env.json", doc(t, "", "rocm-classic-7.2.json"))
	if code, _, errs := runMain([]string{"--env-markers", envjson, remote}, false); code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "not an aorta-probe env-names document") {
		t.Errorf("env.json as markers: exit %d %q", code, errs)
	}
}
