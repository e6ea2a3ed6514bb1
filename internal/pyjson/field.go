package pyjson

import (
	"reflect"
)

// FieldError says why a dotted path names no value of a document: the
// segment At (0-based) met null, a value that is not an object (Type, as
// Python names it: str, int, float, bool, list), or an object without that
// key (Keys, its keys in order).
type FieldError struct {
	At   int
	Null bool
	Type string
	Keys []string
	// Len is the length of a list an index segment ("[N]") was out of
	// range for (OutOfRange).
	Len        int
	OutOfRange bool
}

func (e *FieldError) Error() string { return "schema: no such field" }

// Field returns, as EncodeCompact would write it, the value that path (keys
// of nested objects) names in v, the document exactly as Encode walks it.
// Only the value found is encoded and nothing is decoded, so an unrelated
// part of the document, however large or deeply nested, costs nothing.
// Where a key repeats in a Map, the last value counts, as json.loads keeps
// it. A segment "[N]" indexes a list (N from 0; a negative N counts from
// the end, as Python's does); on anything else it is a key like any other
// and fails the same way (FieldError.Type "dict" for an object).
func Field(v any, path []string) ([]byte, error) {
	cur := member{val: reflect.ValueOf(v)}
	for i, seg := range path {
		val, ok := resolve(cur)
		index, isIndex := listIndex(seg)
		switch {
		case !ok:
			return nil, &FieldError{At: i, Null: true}
		case isIndex && (val.Kind() == reflect.Slice || val.Kind() == reflect.Array) && val.Type() != numberType && !val.Type().Implements(objectType):
			if index < 0 {
				index += val.Len()
			}
			if index < 0 || index >= val.Len() {
				return nil, &FieldError{At: i, OutOfRange: true, Len: val.Len()}
			}
			cur = member{val: val.Index(index)}
		case isIndex && (val.Type().Implements(objectType) || val.Kind() == reflect.Struct):
			return nil, &FieldError{At: i, Type: "dict"}
		case val.Type().Implements(objectType):
			var keys []string
			found := false
			for j := range val.Len() {
				ent := val.Index(j)
				k := ent.Field(0).String()
				if k == seg {
					cur, found = member{key: k, val: ent.Field(1)}, true
				}
				keys = appendNew(keys, k)
			}
			if !found {
				return nil, &FieldError{At: i, Keys: keys}
			}
		case val.Kind() == reflect.Struct:
			ms := new(encoder).structMembers(val, nil)
			found := false
			for _, m := range ms {
				if m.key == seg {
					cur, found = m, true
				}
			}
			if !found {
				keys := make([]string, 0, len(ms))
				for _, m := range ms {
					keys = appendNew(keys, m.key)
				}
				return nil, &FieldError{At: i, Keys: keys}
			}
		default:
			return nil, &FieldError{At: i, Type: pyType(val)}
		}
	}
	e := encoder{itemSep: ", ", keySep: ": ", ascii: true}
	e.value(cur.val, 0, cur.nullable)
	return e.buf, nil
}

// listIndex parses a segment "[N]", N an integer, negative from the end.
// An N too large for any list saturates (it is out of range of every
// list, not a key).
func listIndex(seg string) (int, bool) {
	if len(seg) < 3 || seg[0] != '[' || seg[len(seg)-1] != ']' {
		return 0, false
	}
	digits, neg := seg[1:len(seg)-1], false
	if digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	n := 0
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = min(n*10+int(c-'0'), 1<<40)
	}
	if digits == "" {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// resolve follows pointers and interfaces to the value Encode writes; ok
// is false where Encode writes null.
func resolve(m member) (reflect.Value, bool) {
	v := m.val
	for {
		switch {
		case !v.IsValid():
			return v, false
		case v.Type() == numberType:
			return v, true
		case v.Type().Implements(objectType):
			return v, !(v.IsNil() && m.nullable)
		case v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer:
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		case v.Kind() == reflect.Slice:
			return v, !(v.IsNil() && m.nullable)
		default:
			return v, true
		}
	}
}

// pyType is the Python type name of what Encode writes for v (not an
// object, not null).
func pyType(v reflect.Value) string {
	if v.Type() == numberType {
		return TypeName(Number(v.String()))
	}
	switch v.Kind() {
	case reflect.String:
		return "str"
	case reflect.Bool:
		return "bool"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Float32, reflect.Float64:
		return "float"
	}
	return "int"
}

func appendNew(keys []string, k string) []string {
	for _, have := range keys {
		if have == k {
			return keys
		}
	}
	return append(keys, k)
}
