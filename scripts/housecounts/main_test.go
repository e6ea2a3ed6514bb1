package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestCount: logic lines are the body's lines holding code (blank lines,
// comment-only lines and the braces of the function aside; a line with
// code and a comment counts); a function that returns one composite
// literal is a table; a file declaring nothing is no production file;
// testdata and nested modules are skipped.
func TestCount(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go": `package a

// f has four logic lines: the raw string holds two.
func f() int {
	x := 1 // one

	// a comment
	/* another
	   comment */
	y := ` + "`raw\nstring`" + `
	return x + len(y)
}

func table() []int {
	return []int{
		1,
		2,
	}
}
`,
		"a_test.go":          "package a\n",
		"b.go":               "package a\n\nvar B = 1\n",
		"doc.go":             "// Package a is a.\npackage a\n\nimport _ \"embed\"\n",
		"testdata/c.go":      "package c\n\nfunc g() {}\n",
		"nested/go.mod":      "module nested\n",
		"nested/d.go":        "package d\n\nfunc h() {}\n",
		"sub/e.go":           "package sub\n\nfunc (r *T) m() {\n\treturn\n}\n",
		"sub/e_test.go":      "package sub\n",
		"sub/orphan_test.go": "package sub\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list, err := goFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := count(list)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]fn{}
	for _, f := range c.funcs {
		got[filepath.Base(f.where[len(dir)+1:])] = f
	}
	want := map[string]fn{"a.go:4 f": {lines: 4}, "a.go:15 table": {lines: 4, table: true}, "e.go:3 T.m": {lines: 1}}
	if len(got) != len(want) {
		t.Errorf("functions %v, want %v", got, want)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g.lines != w.lines || g.table != w.table {
			t.Errorf("%s: %+v (found %v), want %+v", k, g, ok, w)
		}
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(dir, p)
			out = append(out, r)
		}
		return out
	}
	if p := rel(c.prod); !slices.Equal(p, []string{"a.go", "b.go", "sub/e.go"}) {
		t.Errorf("production files %q", p)
	}
	if w := rel(c.without); !slices.Equal(w, []string{"b.go"}) {
		t.Errorf("without a test %q", w)
	}
}
