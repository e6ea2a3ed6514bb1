// Package golden is what the tests of every package share to compare
// their output: the one -update flag of `go test ./... -update` (Update),
// the comparison with a golden file that the flag rewrites (Compare,
// LineDiff), and the text of an optional value (OrNull).
//
// For tests only: importing it registers -update on the test binary's
// command line, so every package with tests imports it, if only for that
// (`import _ "aorta-probe/internal/golden"`): `go test ./... -update`
// hands the flag to every test binary, and one that does not define it
// fails. TestEveryTestPackageTakesUpdate checks that each does; nothing
// the binary links imports it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is -update: rewrite the golden files (testdata/golden) and the
// generated files (docs/schema/*.schema.json, docs/env-knobs.md, …)
// instead of comparing with them.
var update = flag.Bool("update", false, "rewrite golden and generated files instead of comparing with them")

// Update reports whether the tests run with -update: a test that
// compares with a file it can generate writes the file instead.
func Update() bool { return *update }

// Compare compares got with the file golden, or writes got there (and
// the directories above it) under -update. A difference names the first
// differing line (LineDiff).
func Compare(t testing.TB, golden string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./... -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./... -update rewrites it):\n%s", golden, LineDiff(want, got))
	}
}

// LineDiff shows the first line where got differs from want, with the
// three lines before it.
func LineDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			var b strings.Builder
			for j := max(0, i-3); j < i; j++ {
				fmt.Fprintf(&b, "  %4d  %s\n", j+1, w[j])
			}
			fmt.Fprintf(&b, "- %4d  %s\n+ %4d  %s\n", i+1, wl, i+1, gl)
			return b.String()
		}
	}
	return "(no line differs; lengths differ)"
}

// OrNull is the text of *p (fmt.Sprint: a string as it is, a number in
// decimal, a bool as true or false), or "null" for nil, as a test
// writes an optional field of the document in a line it compares.
func OrNull[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// Text is the text of the fixture file at path (testdata/, relative to
// the test's package), so that two packages' tests share one fixture; a
// file that cannot be read stops the test binary. Call it from a test,
// not a package variable's initialiser: a test binary re-executed
// elsewhere (probe's detached reader runs in /) initialises its
// variables there too.
func Text(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}
