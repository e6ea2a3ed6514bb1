package validate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// TestCheck: exit 0 for a valid document, 1 with one line per problem for
// an invalid one, 2 for a file that is not JSON or cannot be read and for
// a usage error (docs/schema.md).
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	doc := string(pyjson.Encode(schema.NotCaptured()))
	valid := write("valid.json", doc)
	invalid := write("invalid.json", strings.Replace(doc, `"partial": false`, `"partial": "no"`, 1))
	notJSON := write("not.json", "{")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a fragment; "" wants none
		stderr string
	}{
		{"valid", []string{valid}, 0, "", ""},
		{"invalid", []string{valid, invalid}, 1, invalid + ": ", ""},
		{"not JSON", []string{notJSON, invalid}, 2, invalid + ": ", notJSON + ": not JSON"},
		{"missing", []string{filepath.Join(dir, "none.json")}, 2, "", "none.json: cannot open"},
		{"no file", nil, 2, "", "aorta-probe validate: no FILE given; try 'aorta-probe validate --help'"},
		{"stdin twice", []string{"-", "-"}, 2, "", "- (stdin) given more than once"},
		{"unknown flag", []string{"--bogus", valid}, 2, "", "aorta-probe validate: "},
	} {
		var stdout, stderr bytes.Buffer
		code := check(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tc.name, code, tc.code, stderr.String())
		}
		if tc.stdout == "" && stdout.Len() > 0 || !strings.Contains(stdout.String(), tc.stdout) {
			t.Errorf("%s: stdout %q, want %q", tc.name, stdout.String(), tc.stdout)
		}
		if tc.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%s: stderr %q, want %q", tc.name, stderr.String(), tc.stderr)
		}
	}
}
