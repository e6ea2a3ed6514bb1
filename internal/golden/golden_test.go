package golden

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryTestPackageTakesUpdate: every package of the module with a
// test file imports this package in one of them, so `go test ./...
// -update` finds -update defined in every test binary. Nested modules
// (their own go.mod) and testdata are not packages of this module.
func TestEveryTestPackageTakesUpdate(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]bool{} // package directory -> imports golden
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || exists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		imports[dir] = imports[dir] || slices.ContainsFunc(f.Imports, func(s *ast.ImportSpec) bool {
			p, _ := strconv.Unquote(s.Path.Value)
			return p == "aorta-probe/internal/golden"
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 {
		t.Fatalf("%d packages with tests found under %s: the walk is broken", len(imports), root)
	}
	here, _ := filepath.Abs(".")
	for dir, ok := range imports {
		if !ok && dir != here {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("the tests of ./%s do not import aorta-probe/internal/golden: go test ./... -update fails there", rel)
		}
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// recorder is a testing.TB that keeps what Compare reports.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, a...))
}

// TestCompare: equal bytes pass; a difference names the file and the
// first differing line; a missing file says how to write it.
func TestCompare(t *testing.T) {
	if Update() {
		t.Skip("under -update Compare writes")
	}
	path := filepath.Join(t.TempDir(), "a.json")
	os.WriteFile(path, []byte("{\n  \"a\": 1,\n  \"b\": 2\n}"), 0o644)
	var r recorder
	Compare(&r, path, []byte("{\n  \"a\": 1,\n  \"b\": 2\n}"))
	if len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("equal bytes: %q %q", r.errors, r.fatals)
	}
	Compare(&r, path, []byte("{\n  \"a\": 1,\n  \"b\": 3\n}"))
	want := path + " differs (go test ./... -update rewrites it):\n     1  {\n     2    \"a\": 1,\n-    3    \"b\": 2\n+    3    \"b\": 3\n"
	if len(r.errors) != 1 || r.errors[0] != want {
		t.Errorf("a difference: %q, want %q", r.errors, want)
	}
	Compare(&r, filepath.Join(t.TempDir(), "none.json"), nil)
	if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "go test ./... -update writes it") {
		t.Errorf("a missing golden: %q", r.fatals)
	}
}

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb", "a\nc", "     1  a\n-    2  b\n+    2  c\n"},
		{"a", "a\n", "(no line differs; lengths differ)"},
		{"", "x", "-    1  \n+    1  x\n"},
		{"1\n2\n3\n4\n5", "1\n2\n3\n4\n6", "     2  2\n     3  3\n     4  4\n-    5  5\n+    5  6\n"},
		{"same", "same", "(no line differs; lengths differ)"},
	} {
		if got := LineDiff([]byte(tc.want), []byte(tc.got)); got != tc.diff {
			t.Errorf("LineDiff(%q, %q) = %q, want %q", tc.want, tc.got, got, tc.diff)
		}
	}
}

func TestOrNull(t *testing.T) {
	s, n, b := "x", 42, false
	for _, tc := range []struct{ got, want string }{
		{OrNull(&s), "x"}, {OrNull[string](nil), "null"},
		{OrNull(&n), "42"}, {OrNull[int](nil), "null"},
		{OrNull(&b), "false"}, {OrNull[bool](nil), "null"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
