package probe

import (
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// TestPackageDocNamesSeams: the package doc (doc.go) names every seam of
// Options (each field that is a function or an interface, those of the
// embedded machine.Seams included, and the paths Root, Path and Cwd), so
// a new seam cannot be added without it.
func TestPackageDocNamesSeams(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("doc.go has no package comment")
	}
	text := f.Doc.Text()
	want := []string{"Root", "Path", "Cwd", "Record", "Replay", "Workers"}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Options{})) { // machine.Seams' too
		if k := f.Type.Kind(); k == reflect.Func || k == reflect.Interface {
			want = append(want, f.Name)
		}
	}
	for _, name := range want {
		if !strings.Contains(text, name) {
			t.Errorf("the package doc does not name Options.%s", name)
		}
	}
}
