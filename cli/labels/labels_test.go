package labels

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"aorta-probe/cli"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// TestRun: labels DOC writes one name=value line per label, each a valid
// Kubernetes label (comment lines aside); a DOC that cannot be read is exit 1.
func TestRun(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.json")
	if err := os.WriteFile(doc, pyjson.Encode(schema.NotCaptured()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{doc}, cli.Process{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	// A feature file line: the name (NFD prefixes it) and value are each a
	// Kubernetes label name and value.
	line := regexp.MustCompile(`^aorta-probe\.[a-z0-9-]{1,51}=([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$`)
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if !strings.Contains(stdout.String(), "\naorta-probe.container-runtime=baremetal\n") {
		t.Errorf("labels %q", stdout.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "# ") && !line.MatchString(l) {
			t.Errorf("not a label line: %q", l)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := Run([]string{doc + ".missing"}, cli.Process{Stdout: &stdout, Stderr: &stderr}); code != 1 || stdout.Len() != 0 || stderr.Len() == 0 {
		t.Errorf("missing DOC: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
