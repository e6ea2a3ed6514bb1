package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuckEndToEnd runs the whole CLI with the fake buck2 first on PATH in
// a fake project (fakeBuckProject): the Python probe's full request example, the document on stdout.
func TestBuckEndToEnd(t *testing.T) {
	t.Setenv("PATH", fakeBuck2(t)+":/usr/bin:/bin")
	t.Chdir(fakeBuckProject(t, nil))
	t.Setenv("HOME", t.TempDir())
	args := []string{"-", "--buck-target", "//app:trainer", "--buck-option", "mode=root//mode/debug", "--buck-option", "config=build.profile=debug",
		"--buck-option", "mode=root//mode/gpu", "--buck-option", "config=scheduler.policy=local", "--buck-option", "modifier=//constraints:linux",
		"--buck-option", "modifier=//constraints:gfx", "--buck-timeout", "5"}
	var stdout, stderr bytes.Buffer
	if code := run(nil, args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	doc := stdout.String()
	for _, want := range []string{
		`"context_fingerprint": "sha256:28ec3392529ca88f6885d9bfe2efc2d8c535f3d96bb17f17d4bbe05123ef6731"`,
		`"status": "success"`,
		`"likely_execution_platform": "prelude//platforms:default"`,
		`"build.profile=<redacted>"`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	for _, secret := range []string{"build.profile=debug", "scheduler.policy=local"} {
		if strings.Contains(doc, secret) {
			t.Errorf("document holds config value %s", secret)
		}
	}
}

// fakeBuck2 is the directory of the fake buck2 (testdata/fakebuck2), to
// put first on PATH.
func fakeBuck2(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata/fakebuck2")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeBuckProject is a new Buck2 project (an empty .buckconfig) for the
// fake buck2, which reads its answers from .fakebuck2/NAME: hooks maps
// NAME to the file's content (testdata/fakebuck2/buck2 lists them).
func fakeBuckProject(t *testing.T, hooks map[string]string) string {
	t.Helper()
	project := t.TempDir()
	files := map[string]string{".buckconfig": ""}
	for name, body := range hooks {
		files[filepath.Join(".fakebuck2", name)] = body
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Join(project, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project
}
