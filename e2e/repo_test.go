package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docRef is a reference to a page of docs/, with an optional anchor, as the
// reasons, comments and pages write them.
var docRef = regexp.MustCompile(`docs/([a-z0-9_-]+\.md)(#[a-z0-9_-]+)?`)

// specRef is a reference to one of the aorta steering specs or design notes
// (core.md, context.md, buck2.md, peers.md, architecture.md, go-style.md),
// which live outside this repository: a maintainer does not have them. It
// does not match docs/buck2.md, this repository's own page.
var specRef = regexp.MustCompile(`(?:^|[^/\w.-])((?:core|context|buck2|peers|architecture|go-style)\.md)\b`)

// TestDocReferences: every docs/PAGE.md#anchor named in the sources (the
// reasons the document carries among them), the scripts, the Buck files,
// the test fixtures and the pages exists: the page, and a heading whose
// GitHub anchor is the one named. None of them cites a spec file that is not
// in this repository, or a spec section ("§") outside docs/: comments cite
// docs/ or the aorta field name.
func TestDocReferences(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{"*.go", "*/*.go", "*/*/*.go", "*/*/*/*.go", "*.md", "docs/*.md", "probe/*.py",
		"scripts/*.sh", "buck/*.bzl", "BUILD.buck", "deploy/Containerfile", "deploy/*/*.yaml", "deploy/*/*.sh", "deploy/*/*.sbatch", "testdata/fakebuck2/*", "testdata/roots/*.txtar"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no file to scan")
	}
	anchors := map[string]map[string]bool{}
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if f == filepath.Join("e2e", "repo_test.go") { // names the rule it enforces
				break
			}
			if m := specRef.FindStringSubmatch(line); m != nil {
				t.Errorf("%s:%d cites %s, which is not in this repository: cite docs/ or the aorta field name", f, i+1, m[1])
			}
			if strings.Contains(line, "§") && !strings.HasPrefix(f, "docs"+string(filepath.Separator)) {
				t.Errorf("%s:%d cites a spec section (§): cite docs/ or the aorta field name", f, i+1)
			}
		}
		for _, m := range docRef.FindAllStringSubmatch(string(b), -1) {
			page, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if _, ok := anchors[page]; !ok {
				anchors[page] = headingAnchors(t, filepath.Join("docs", page))
			}
			switch {
			case anchors[page] == nil:
				t.Errorf("%s names docs/%s, which does not exist", f, page)
			case anchor != "" && !anchors[page][anchor]:
				t.Errorf("%s names docs/%s#%s: no such heading", f, page, anchor)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no reference to docs/ found: the scan is broken")
	}
}

// headingAnchors returns the GitHub anchors of the headings of a Markdown
// page (lower case, punctuation dropped, spaces as hyphens), nil when the
// page does not exist.
func headingAnchors(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		h, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		h = strings.TrimSpace(strings.TrimLeft(h, "#"))
		var slug strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				slug.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				slug.WriteRune(r)
			}
		}
		out[slug.String()] = true
	}
	return out
}

// TestGitIgnoresREADMEOutput: the README's first command writes env.json in
// the checkout; git must not offer it for a commit.
func TestGitIgnoresREADMEOutput(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	if err := exec.Command(git, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	if err := exec.Command(git, "check-ignore", "-q", "env.json").Run(); err != nil {
		t.Errorf("git check-ignore env.json: %v (not ignored)", err)
	}
}

// TestReadmeLayout: the README's Layout block names every top-level
// directory (hidden ones aside), every package under internal/ and every top-level source
// file (a glob such as flags*.go may cover several), and each name it
// lists exists. What .gitignore ignores is no part of the layout: the
// README's docker example creates out/ in the checkout.
func TestReadmeLayout(t *testing.T) {
	for _, p := range readmeLayoutProblems(t, ".") {
		t.Error(p)
	}
}

// TestReadmeLayoutIgnored: readmeLayoutProblems passes over a top-level
// directory or file that .gitignore ignores (out/ of the README's docker
// example, a built binary) and still names one that it does not.
func TestReadmeLayoutIgnored(t *testing.T) {
	dir := t.TempDir()
	readme := "# x\n\n## Layout\n\n```\nmain.go   the command\ncli/      the commands\n```\n"
	files := map[string]string{"README.md": readme, "main.go": "", "cli/a.go": "", "out/env.json": "{}",
		"aorta-probe": "", "stray/a.go": "", ".gitignore": "# built\n/aorta-probe\n*.test\n/out/\n/deploy/aorta-probe\n"}
	for name, body := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := readmeLayoutProblems(t, dir)
	if want := []string{"the README's Layout does not name stray"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("with out/ ignored: %q, want %q", got, want)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/aorta-probe\n"), 0o644)
	if got := readmeLayoutProblems(t, dir); !slices.Contains(got, "the README's Layout does not name out") {
		t.Errorf("with out/ not ignored: %q, want it named", got)
	}
}

// readmeLayoutProblems is TestReadmeLayout's check of the checkout at
// root: one line per problem.
func readmeLayoutProblems(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "## Layout\n\n```\n")
	block, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatal("README.md has no ## Layout code block")
	}
	var problems, entries []string
	for _, line := range strings.Split(block, "\n") {
		names, _, _ := strings.Cut(line, "  ")
		for _, e := range strings.Fields(names) {
			if m, _ := filepath.Glob(filepath.Join(root, strings.TrimSuffix(e, "/"))); len(m) == 0 {
				problems = append(problems, "the layout names "+e+", which does not exist")
			}
			entries = append(entries, strings.TrimSuffix(e, "/"))
		}
	}
	named := func(p string) bool {
		for _, e := range entries {
			if ok, _ := filepath.Match(e, p); ok {
				return true
			}
		}
		return false
	}
	ignored := gitIgnoredTop(t, root)
	want, _ := filepath.Glob(filepath.Join(root, "internal/*"))
	for i := range want {
		want[i], _ = filepath.Rel(root, want[i])
	}
	entriesTop, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entriesTop {
		p := e.Name()
		fi, err := os.Stat(filepath.Join(root, p))
		switch {
		case err != nil:
			t.Fatal(err)
		case strings.HasPrefix(p, "."), ignored(p, fi.IsDir()):
		case fi.IsDir() && p != "internal":
			want = append(want, p)
		case strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			want = append(want, p)
		}
	}
	for _, p := range want {
		if !named(p) {
			problems = append(problems, "the README's Layout does not name "+p)
		}
	}
	return problems
}

// gitIgnoredTop reads root's .gitignore and reports whether it ignores a
// top-level entry: the patterns that can match one (NAME, /NAME, a glob,
// with a trailing / for directories only); a pattern with a / inside
// names something deeper, and ! re-includes what an earlier one ignored,
// as git reads them.
func gitIgnoredTop(t *testing.T, root string) func(name string, dir bool) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	return func(name string, dir bool) bool {
		ignored := false
		for _, l := range lines {
			l = strings.TrimSpace(l)
			neg := strings.HasPrefix(l, "!")
			l = strings.TrimPrefix(l, "!")
			dirOnly := strings.HasSuffix(l, "/")
			l = strings.TrimPrefix(strings.TrimSuffix(l, "/"), "/")
			if l == "" || strings.HasPrefix(l, "#") || strings.Contains(l, "/") || (dirOnly && !dir) {
				continue
			}
			if ok, _ := filepath.Match(l, name); ok {
				ignored = !neg
			}
		}
		return ignored
	}
}
