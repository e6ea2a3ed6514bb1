package schema_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema/jsonschema"
)

// TestSchemaFiles regenerates the published JSON Schema from the types of
// this package, the tables of enums.go and the doc comments, and compares it
// with docs/schema/; `go test ./schema -update` rewrites the files.
func TestSchemaFiles(t *testing.T) {
	describe := docComments(t)
	env, prov := jsonschema.Generate(describe)
	for name, doc := range map[string]pyjson.Map[any]{jsonschema.EnvID: env, jsonschema.ProvenanceID: prov} {
		for _, p := range undescribed(doc, "$") {
			t.Errorf("%s: %s has no description: give its field a doc comment", name, p)
		}
		got := append(pyjson.Encode(doc), '\n')
		path := filepath.Join("..", "docs", "schema", name)
		golden.Compare(t, path, got)
	}
}

// undescribed lists the properties without a description, anywhere in s.
func undescribed(s any, path string) []string {
	var out []string
	switch s := s.(type) {
	case pyjson.Map[any]:
		for _, e := range s {
			sub := path
			if e.Key == "properties" {
				for _, p := range e.Value.(pyjson.Map[any]) {
					if _, ok := p.Value.(pyjson.Map[any]).Get("description"); !ok {
						out = append(out, path+"."+p.Key)
					}
					out = append(out, undescribed(p.Value, path+"."+p.Key)...)
				}
				continue
			}
			if e.Key == "$defs" {
				for _, d := range e.Value.(pyjson.Map[any]) {
					out = append(out, undescribed(d.Value, "#/$defs/"+d.Key)...)
				}
				continue
			}
			out = append(out, undescribed(e.Value, sub)...)
		}
	case []any:
		for _, v := range s {
			out = append(out, undescribed(v, path)...)
		}
	}
	return out
}

// docRef drops a parenthesised "(docs/hardware.md#nics)"-style reference
// from the published descriptions: it points a maintainer of this
// repository at the rule, while a reader of the JSON Schema wants the
// description alone (and a stable one: headings may be renamed).
var docRef = regexp.MustCompile(`\s*\(docs/[a-z0-9_-]+\.md(?:#[a-z0-9_-]+)?\)`)

// docComments reads the doc and line comments of the types and fields of
// this package's sources.
func docComments(t *testing.T) jsonschema.Describe {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	clean := func(groups ...*ast.CommentGroup) string {
		var parts []string
		for _, g := range groups {
			if g == nil {
				continue
			}
			text := strings.Join(strings.Fields(g.Text()), " ")
			text = strings.TrimSpace(docRef.ReplaceAllString(text, ""))
			if text != "" {
				parts = append(parts, text)
			}
		}
		return strings.Join(parts, " ")
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range af.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				docs[ts.Name.Name] = clean(doc)
				for _, fl := range st.Fields.List {
					if fl.Tag == nil || len(fl.Names) != 1 {
						continue
					}
					tag, _ := strconv.Unquote(fl.Tag.Value)
					key, _, _ := strings.Cut(reflect.StructTag(tag).Get("py"), ",")
					docs[ts.Name.Name+"."+key] = clean(fl.Doc, fl.Comment)
				}
			}
		}
	}
	return func(goType, key string) string {
		if key == "" {
			return docs[goType]
		}
		return docs[goType+"."+key]
	}
}
