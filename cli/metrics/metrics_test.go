package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/cli"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// TestRun: metrics DOC writes the exposition format, aorta_env_info
// first among the families; an OUT not ending in .prom is refused, since
// the textfile collector would never read it.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.json")
	if err := os.WriteFile(doc, pyjson.Encode(schema.NotCaptured()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{doc}, cli.Process{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if out := stdout.String(); !strings.HasPrefix(out, "# HELP aorta_env_info ") || !strings.Contains(out, "\n# TYPE aorta_env_info gauge\n") {
		t.Errorf("metrics %q", out)
	}
	stdout.Reset()
	stderr.Reset()
	code := Run([]string{doc, filepath.Join(dir, "out.txt")}, cli.Process{Stdout: &stdout, Stderr: &stderr})
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); code != 2 || err == nil || !strings.Contains(stderr.String(), ".prom") {
		t.Errorf("OUT without .prom: exit %d, written %v, stderr %q", code, err == nil, stderr.String())
	}
}
