package probe

import (
	"fmt"
	"reflect"

	"aorta-probe/internal/pyjson"
)

// Values the probe takes from the Python helper or from a tool's JSON and
// writes into the document are bounded in depth and size, so that the
// document always loads in its readers (docs/design-notes.md, "Bounded
// values"). Python's json module is the strictest reader: its C scanner
// stops at about 995 levels (the default recursion limit, 1000), the
// pure-Python scanner at about 450. A value deeper than maxValueDepth, or
// larger than maxValueBytes as JSON, is replaced by null and a reason
// names it.
const (
	// maxValueDepth bounds the nesting of one value (a scalar is depth 0,
	// [[1]] is 2). Real values are scalars or a few levels (rdhc's report);
	// with the document's own nesting on top the whole stays far below
	// every reader's limit (TestBoundsLoadInPython).
	maxValueDepth = 32
	// maxValueBytes bounds the JSON size of one value. Real values are
	// bytes to kilobytes (a version, a path, torch's CXX flags, rdhc's
	// report).
	maxValueBytes = 1 << 20
)

// valueBound says why v may not be written as it is ("" when it may): it is
// nested deeper than maxValueDepth or is larger than maxValueBytes. v is a
// decoded JSON value (pyjson's value model).
func valueBound(v any) string {
	size, deep := 0, false
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		if depth > maxValueDepth {
			deep = true
			return false
		}
		switch x := v.(type) {
		case string:
			size += len(x) + 2
		case pyjson.Number:
			size += len(x)
		case []any:
			size += 2
			for _, e := range x {
				if !walk(e, depth+1) {
					return false
				}
				size++
			}
		case pyjson.Map[any]:
			size += 2
			for _, e := range x {
				size += len(e.Key) + 4
				if !walk(e.Value, depth+1) {
					return false
				}
			}
		default: // nil, bool
			size += 5
		}
		return size <= maxValueBytes
	}
	walk(v, 0)
	switch {
	case deep:
		return fmt.Sprintf("nested deeper than %d levels", maxValueDepth)
	case size > maxValueBytes:
		return fmt.Sprintf("larger than %d bytes", maxValueBytes)
	}
	return ""
}

// boundHelperElement applies the bounds to every value of one decoded
// helper element, in place: a value out of bounds becomes its zero value
// (null) and cut is called with its helper-side name (torch.version_module.debug)
// and why. torch.maps is exempt: it is parsed, never written, and may be
// large in a real process.
func boundHelperElement(e *helperElement, cut func(name, why string)) {
	v := reflect.ValueOf(e).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if f := v.Field(i); boundField(f, helperKey(t.Field(i)), cut) {
			f.SetZero()
		}
	}
}

// helperKey is the key of a helper struct field in the helper's stream.
func helperKey(f reflect.StructField) string { return pyjson.FieldTag(f).Key }

// boundField bounds v and what it holds; it reports whether v itself is out
// of bounds, for the caller to replace it by its zero value (a nil pointer:
// null).
func boundField(v reflect.Value, name string, cut func(name, why string)) bool {
	if name == "torch.maps" {
		return false
	}
	zero := func(e reflect.Value, name string) {
		if boundField(e, name, cut) {
			e.SetZero()
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		return !v.IsNil() && boundField(v.Elem(), name, cut)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				zero(v.Field(i), name+"."+helperKey(t.Field(i)))
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			zero(e, name+"."+fmt.Sprint(k.Interface()))
			v.SetMapIndex(k, e)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			zero(v.Index(i), name)
		}
	case reflect.Interface, reflect.String:
		if v.IsZero() {
			return false
		}
		if why := valueBound(v.Interface()); why != "" {
			cut(name, why)
			return true
		}
	}
	return false
}
