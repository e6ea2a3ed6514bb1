package pyjson

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
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
	return Store(val, v)
}

// Store is Unmarshal of a value Decode returned (nil, bool, Number,
// string, []any or Map[any]): the same rules, and also the document
// types' own shapes, so that a whole decoded document goes back into the
// type that writes it (aorta-probe --summary DOC, cli/capture):
//
//   - a Map[V] takes an object's members in order;
//   - a Number field takes a number, an unsigned one a non-negative
//     integer;
//   - the members of an ",inline" struct pointer are taken by their keys,
//     the struct allocated when the object has one of them.
//
// An error of a value of another shape is a *StoreError naming where.
func Store(val any, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("pyjson: Unmarshal needs a non-nil pointer, not %T", v)
	}
	return assign(rv.Elem(), val)
}

// StoreError is a value Store could not store: At is where, as a path
// from the top ($.host.kernel_release, $.nics.cx7.links[0]).
type StoreError struct {
	At         string
	Type, Into string // the value's Python type name; the Go type
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("pyjson: cannot store a %s in %s at %s", e.Type, e.Into, e.At)
}

// within prefixes the path of a StoreError with seg (".key" or "[i]").
func within(err error, seg string) error {
	if se, ok := err.(*StoreError); ok {
		se.At = "$" + seg + strings.TrimPrefix(se.At, "$")
	}
	return err
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
		return &StoreError{At: "$", Type: TypeName(val), Into: dst.Type().String()}
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
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return assignScalar(dst, val)
	case reflect.Slice:
		if m, ok := val.(Map[any]); ok && dst.Type().Implements(objectType) {
			return assignEntries(dst, m)
		}
		l, ok := val.([]any)
		if !ok || dst.Type().Implements(objectType) {
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

// assignScalar stores val into a string, bool or integer dst (assign).
func assignScalar(dst reflect.Value, val any) error {
	mismatch := func() error {
		return &StoreError{At: "$", Type: TypeName(val), Into: dst.Type().String()}
	}
	switch dst.Kind() {
	case reflect.String:
		s, ok := val.(string)
		if n, isNum := val.(Number); isNum && dst.Type() == numberType {
			s, ok = string(n), true
		}
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
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := val.(Number)
		if !ok || !n.IsInteger() {
			return mismatch()
		}
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil || dst.OverflowUint(u) {
			return mismatch()
		}
		dst.SetUint(u)
	}
	return nil
}

func assignSlice(dst reflect.Value, l []any) error {
	out := reflect.MakeSlice(dst.Type(), len(l), len(l))
	for i, e := range l {
		if err := assign(out.Index(i), e); err != nil {
			return within(err, "["+strconv.Itoa(i)+"]")
		}
	}
	dst.Set(out)
	return nil
}

// assignEntries stores an object in a Map[V], member by member, in order.
func assignEntries(dst reflect.Value, m Map[any]) error {
	out := reflect.MakeSlice(dst.Type(), len(m), len(m))
	for i, e := range m {
		ent := out.Index(i)
		ent.Field(0).SetString(e.Key)
		if err := assign(ent.Field(1), e.Value); err != nil {
			return within(err, "."+e.Key)
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
			return within(err, "."+e.Key)
		}
		dst.SetMapIndex(reflect.ValueOf(e.Key).Convert(dst.Type().Key()), ev)
	}
	return nil
}

// assignStruct stores each member of m in the field whose `py` key it is.
func assignStruct(dst reflect.Value, m Map[any]) error {
	for _, e := range m {
		if f, ok := fieldFor(dst, e.Key); ok {
			if err := assign(f, e.Value); err != nil {
				return within(err, "."+e.Key)
			}
		}
	}
	return nil
}

// fieldFor is the field of the struct dst whose `py` key is key, looked
// for in its ",inline" struct pointers too, which are allocated on the
// way to a field found in them.
func fieldFor(dst reflect.Value, key string) (reflect.Value, bool) {
	t := dst.Type()
	for i := range t.NumField() {
		tag := FieldTag(t.Field(i))
		f := dst.Field(i)
		switch {
		case tag.Skip:
		case tag.Inline && f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct && f.CanSet():
			in := reflect.New(f.Type().Elem())
			if !f.IsNil() {
				in = f
			}
			if g, ok := fieldFor(in.Elem(), key); ok {
				f.Set(in)
				return g, true
			}
		case tag.Inline && f.Kind() == reflect.Struct:
			if g, ok := fieldFor(f, key); ok {
				return g, true
			}
		case tag.Key == key:
			return f, true
		}
	}
	return reflect.Value{}, false
}
