package triage

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestReadInput: both readers (documents and env-names documents) name
// the path once, "-" reads stdin, and a missing stdin is an error.
func TestReadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString(minimal10)
	w.Close()
	defer r.Close()
	for _, tc := range []struct {
		path  string
		stdin *os.File
		want  string
	}{
		{missing, nil, missing + ": no such file or directory"},
		{"-", nil, "-: no standard input"},
		{"-", r, ""},
	} {
		_, err := ReadFile(tc.path, tc.stdin)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("ReadFile(%q): %v, want %q", tc.path, err, tc.want)
		}
		if tc.want == "" {
			continue
		}
		if _, err := ReadEnvNames(tc.path, tc.stdin); fmt.Sprint(err) != tc.want {
			t.Errorf("ReadEnvNames(%q): %v, want %q", tc.path, err, tc.want)
		}
	}
}
