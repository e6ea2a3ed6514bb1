package schema_test

import (
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// TestSchemaTablesName checks that every key of the tables in enums.go names
// a real "GoType.json_key" (or a real shape of Variants), so a renamed field
// cannot silently lose its enum or version.
func TestSchemaTablesName(t *testing.T) {
	keys := map[string]bool{}
	var walk func(reflect.Type)
	seen := map[reflect.Type]bool{}
	walk = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			if pyjson.IsMapType(rt) {
				rt = rt.Elem().Field(1).Type
				continue
			}
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt] {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			f := rt.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("py"), ",")
			if name != "" {
				keys[rt.Name()+"."+name] = true
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[schema.Snapshot]())
	for k := range schema.Enums {
		if !keys[k] {
			t.Errorf("Enums[%q] names no field", k)
		}
	}
	for k := range schema.AddedIn {
		if !keys[k] {
			t.Errorf("AddedIn[%q] names no field", k)
		}
	}
	for shape, pins := range schema.Variants {
		typ, _, _ := strings.Cut(shape, "+")
		for k := range pins {
			if !keys[typ+"."+k] {
				t.Errorf("Variants[%q][%q] names no field", shape, k)
			}
		}
	}
}
