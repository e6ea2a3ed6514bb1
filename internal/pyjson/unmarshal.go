package pyjson

import (
	"fmt"
	"reflect"
	"strconv"
)

// unmarshalDepth is Unmarshal's nesting limit, encoding/json's: the values
// a source reports are decoded at any realistic depth and bounded by the
// caller (probe/bounds.go), where Decode's 512 would lose the whole text.
const unmarshalDepth = 10000

// Unmarshal decodes text as Decode does (up to 10,000 levels deep) and
// stores the value in the Go value v points to, for a source whose shape
// the program knows (the Python helper's stream):
//
//   - a struct takes an object's members by the fields' `py` keys
//     (FieldTag); other members are ignored, missing ones leave the field
//     as it is, a repeated member counts last;
//   - a pointer is allocated; a slice takes an array, a map with string
//     keys an object, string, bool and integer fields their scalar;
//   - an interface field takes the decoded value itself (nil, bool,
//     Number, string, []any or Map[any]);
//   - null sets a pointer, slice, map or interface to nil and leaves any
//     other field as it is.
//
// A value of another shape is an error naming its Python type; the fields
// stored before it stay stored.
func Unmarshal(text string, v any) error {
	val, err := decode(text, unmarshalDepth)
	if err != nil {
		return err
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("pyjson: Unmarshal needs a non-nil pointer, not %T", v)
	}
	return assign(rv.Elem(), val)
}

func assign(dst reflect.Value, val any) error {
	if val == nil {
		switch dst.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
			dst.SetZero()
		}
		return nil
	}
	mismatch := func() error {
		return fmt.Errorf("pyjson: cannot store a %s in %s", TypeName(val), dst.Type())
	}
	switch dst.Kind() {
	case reflect.Interface:
		if dst.NumMethod() != 0 {
			return mismatch()
		}
		dst.Set(reflect.ValueOf(val))
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return assign(dst.Elem(), val)
	case reflect.String:
		s, ok := val.(string)
		if !ok {
			return mismatch()
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := val.(bool)
		if !ok {
			return mismatch()
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := val.(Number)
		if !ok || !n.IsInteger() {
			return mismatch()
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || dst.OverflowInt(i) {
			return mismatch()
		}
		dst.SetInt(i)
	case reflect.Slice:
		l, ok := val.([]any)
		if !ok {
			return mismatch()
		}
		return assignSlice(dst, l)
	case reflect.Map:
		m, ok := val.(Map[any])
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return mismatch()
		}
		return assignMap(dst, m)
	case reflect.Struct:
		m, ok := val.(Map[any])
		if !ok {
			return mismatch()
		}
		return assignStruct(dst, m)
	default:
		return mismatch()
	}
	return nil
}

func assignSlice(dst reflect.Value, l []any) error {
	out := reflect.MakeSlice(dst.Type(), len(l), len(l))
	for i, e := range l {
		if err := assign(out.Index(i), e); err != nil {
			return err
		}
	}
	dst.Set(out)
	return nil
}

func assignMap(dst reflect.Value, m Map[any]) error {
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(dst.Type(), len(m)))
	}
	for _, e := range m {
		ev := reflect.New(dst.Type().Elem()).Elem()
		if err := assign(ev, e.Value); err != nil {
			return err
		}
		dst.SetMapIndex(reflect.ValueOf(e.Key).Convert(dst.Type().Key()), ev)
	}
	return nil
}

// assignStruct stores each member of m in the field whose `py` key it is.
func assignStruct(dst reflect.Value, m Map[any]) error {
	t := dst.Type()
	for _, e := range m {
		for i := range t.NumField() {
			tag := FieldTag(t.Field(i))
			if tag.Skip || tag.Inline || tag.Key != e.Key {
				continue
			}
			if err := assign(dst.Field(i), e.Value); err != nil {
				return err
			}
			break
		}
	}
	return nil
}
