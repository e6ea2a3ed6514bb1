package envnames

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aorta-probe/cli"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/triage"
)

// TestNamesNoValues: the written document never holds a value
// outside the allow-list, and the output is written atomically.
func TestNamesNoValues(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "names.json")
	var so, se bytes.Buffer
	w := cli.WatchSignals(nil)
	defer w.Stop()
	write := writer(w, &so)
	env := []string{"AWS_SECRET_ACCESS_KEY=AKIAVALUE", "HOME=/home/alice", "BUCK_SCRATCH_PATH=buck-out/v2/tmp"}
	if code := names([]string{out}, env, &so, &se, write); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, _ := os.ReadFile(out)
	for _, v := range []string{"AKIAVALUE", "/home/alice"} {
		if strings.Contains(string(b), v) {
			t.Errorf("value %q leaked:\n%s", v, b)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	e, err := triage.ReadEnvNames(out, nil)
	if err != nil || !slices.Equal(e.Names, []string{"AWS_SECRET_ACCESS_KEY", "BUCK_SCRATCH_PATH", "HOME"}) {
		t.Errorf("read back %+v %v", e, err)
	}
	if code := names([]string{filepath.Join(dir, "no", "such", "x.json")}, env, &so, &se, write); code != 1 {
		t.Errorf("unwritable output: exit %d", code)
	}
	if code := names([]string{"--bogus"}, env, &so, &se, write); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
}
