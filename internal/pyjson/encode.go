// Package pyjson is the project's Python-compatible JSON codec: Encode
// writes what Python's json.dumps writes, Decode reads what json.loads
// reads and reports its errors in json.loads's words, Map is an object that
// keeps insertion order as a dict does, and Number keeps a number literal
// as it was read. It knows nothing of the env document; package schema
// defines the document types and tags their fields with the `py` key this
// package reads (docs/design-notes.md, "Python emulation and the JSON
// codec").
package pyjson

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
)

// The document is written exactly as Python's json.dumps writes it
// (docs/design-notes.md#python-emulation-and-the-json-codec), which
// encoding/json cannot do: Python escapes every non-ASCII code point as
// lower-case \uXXXX (surrogate pairs above U+FFFF), escapes DEL, never
// escapes <, > or &, renders floats with repr, and maps bytes that are not
// valid UTF-8 to U+DC80..U+DCFF (surrogateescape).
//
// Values are Go types walked by reflection:
//
//   - nil interfaces and nil pointers are null;
//   - structs are objects, members in field order, named by the `py` tag
//     (a key of this package's own: encoding/json, which the program also
//     uses, knows none of the options below);
//     a field tagged "-" is skipped, ",omitnil" omits a nil pointer, and
//     ",inline" splices the members of an embedded struct pointer (nothing
//     when nil);
//   - slices are arrays; a nil slice is [] unless the field is tagged
//     ",nullable", then null;
//   - Map values are objects in insertion order; nil follows the same
//     ",nullable" rule as slices;
//   - Number keeps a JSON number literal as parsed (see decode.go).

// Encode returns v as json.dumps(v, indent=2) writes it, without a trailing
// newline: the bytes of an env.json file.
func Encode(v any) []byte {
	e := encoder{indent: "  ", itemSep: ",", keySep: ": ", ascii: true}
	// A document is tens of KiB: one buffer of that size instead of a
	// dozen doublings (the capture encodes once, on its critical path).
	e.buf = make([]byte, 0, encodeBufSize)
	e.value(reflect.ValueOf(v), 0, false)
	return e.buf
}

// EncodeCompact returns v as json.dumps(v) writes it: one line, ", " between
// items and ": " between key and value (the --field output).
func EncodeCompact(v any) []byte {
	e := encoder{itemSep: ", ", keySep: ": ", ascii: true}
	e.value(reflect.ValueOf(v), 0, false)
	return e.buf
}

// EncodeCanonical returns v as json.dumps(v, ensure_ascii=False,
// separators=(",", ":"), sort_keys=True) writes it, as UTF-8: the payload of
// the Buck context fingerprint (docs/buck2.md#context-fingerprint).
func EncodeCanonical(v any) []byte {
	e := encoder{itemSep: ",", keySep: ":", sortKeys: true}
	e.value(reflect.ValueOf(v), 0, false)
	return e.buf
}

// encodeBufSize is Encode's first buffer: an env.json of a host without
// torch is about 35 KiB.
const encodeBufSize = 64 << 10

type encoder struct {
	buf      []byte
	indent   string // "" for one-line output
	itemSep  string
	keySep   string
	ascii    bool // ensure_ascii
	sortKeys bool
	// fields caches the encoded fields of each struct type met so far,
	// and spare the member lists of finished objects, per depth: reused,
	// not reallocated, for the next object at that depth.
	fields map[reflect.Type][]field
	spare  [][]member
}

// field is one encoded field of a struct type: its index and tag.
type field struct {
	index int
	tag   Tag
}

// fieldsOf is the fields of struct type t that are encoded (not skipped),
// in order.
func (e *encoder) fieldsOf(t reflect.Type) []field {
	if fs, ok := e.fields[t]; ok {
		return fs
	}
	fs := make([]field, 0, t.NumField())
	for i := range t.NumField() {
		if tag := FieldTag(t.Field(i)); !tag.Skip {
			fs = append(fs, field{i, tag})
		}
	}
	if e.fields == nil {
		e.fields = map[reflect.Type][]field{}
	}
	e.fields[t] = fs
	return fs
}

// memberList is an empty member list for an object at depth, and done
// gives it back once the object is written.
func (e *encoder) memberList(depth int) []member {
	for len(e.spare) <= depth {
		e.spare = append(e.spare, nil)
	}
	ms := e.spare[depth]
	e.spare[depth] = nil
	return ms[:0]
}

func (e *encoder) done(depth int, ms []member) {
	clear(ms) // no reflect.Value kept alive
	e.spare[depth] = ms
}

// object is implemented by Map; the encoder reads its entries by reflection.
type object interface{ isObject() }

var (
	objectType = reflect.TypeFor[object]()
	numberType = reflect.TypeFor[Number]()
)

func (e *encoder) newline(depth int) {
	if e.indent == "" {
		return
	}
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, e.indent...)
	}
}

func (e *encoder) value(v reflect.Value, depth int, nullable bool) {
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return
	}
	if v.Type() == numberType {
		e.number(Number(v.String()))
		return
	}
	if v.Type().Implements(objectType) {
		if v.IsNil() && nullable {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.mapObject(v, depth)
		return
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.value(v.Elem(), depth, nullable)
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		e.buf = pyfmt.AppendFloatJSON(e.buf, v.Float())
	case reflect.String:
		e.buf = appendString(e.buf, v.String(), e.ascii)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() && nullable {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.array(v, depth)
	case reflect.Struct:
		e.structObject(v, depth)
	default:
		panic("schema: cannot encode " + v.Type().String())
	}
}

func (e *encoder) array(v reflect.Value, depth int) {
	if v.Len() == 0 {
		e.buf = append(e.buf, "[]"...)
		return
	}
	e.buf = append(e.buf, '[')
	for i := range v.Len() {
		if i > 0 {
			e.buf = append(e.buf, e.itemSep...)
		}
		e.newline(depth + 1)
		e.value(v.Index(i), depth+1, false)
	}
	e.newline(depth)
	e.buf = append(e.buf, ']')
}

// member is one key of an object, ready to encode.
type member struct {
	key      string
	val      reflect.Value
	nullable bool
}

func (e *encoder) members(ms []member, depth int) {
	if len(ms) == 0 {
		e.buf = append(e.buf, "{}"...)
		return
	}
	if e.sortKeys {
		sortMembers(ms)
	}
	e.buf = append(e.buf, '{')
	for i, m := range ms {
		if i > 0 {
			e.buf = append(e.buf, e.itemSep...)
		}
		e.newline(depth + 1)
		e.buf = appendString(e.buf, m.key, e.ascii)
		e.buf = append(e.buf, e.keySep...)
		e.value(m.val, depth+1, m.nullable)
	}
	e.newline(depth)
	e.buf = append(e.buf, '}')
}

func sortMembers(ms []member) {
	// Insertion sort: objects here are small, and it is stable.
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].key < ms[j-1].key; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func (e *encoder) mapObject(v reflect.Value, depth int) {
	ms := e.memberList(depth)
	for i := range v.Len() {
		ent := v.Index(i)
		ms = append(ms, member{key: ent.Field(0).String(), val: ent.Field(1)})
	}
	e.members(ms, depth)
	e.done(depth, ms)
}

func (e *encoder) structObject(v reflect.Value, depth int) {
	ms := e.structMembers(v, e.memberList(depth))
	e.members(ms, depth)
	e.done(depth, ms)
}

func (e *encoder) structMembers(v reflect.Value, ms []member) []member {
	for _, f := range e.fieldsOf(v.Type()) {
		fv := v.Field(f.index)
		if f.tag.Inline {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			ms = e.structMembers(fv, ms)
			continue
		}
		if f.tag.OmitNil && fv.Kind() == reflect.Pointer && fv.IsNil() {
			continue
		}
		ms = append(ms, member{key: f.tag.Key, val: fv, nullable: f.tag.Nullable})
	}
	return ms
}

// Tag is what the `py` struct tag of a field says: `py:"key,opt,…"`.
type Tag struct {
	Key      string // the member's key; the Go field name when the tag has none
	Skip     bool   // `py:"-"`, or an unexported field that is not embedded
	Inline   bool   // ",inline": the members of an embedded struct pointer are spliced in
	Nullable bool   // ",nullable": a nil slice or Map is null, not empty
	OmitNil  bool   // ",omitnil": a nil pointer leaves the member out
}

// FieldTag parses the `py` tag of f. The JSON Schema generator reads the
// document types through it too, so both agree on every key.
func FieldTag(f reflect.StructField) Tag {
	name, opts, _ := strings.Cut(f.Tag.Get("py"), ",")
	if name == "-" || (!f.IsExported() && !f.Anonymous) {
		return Tag{Skip: true}
	}
	t := Tag{Key: name}
	if t.Key == "" {
		t.Key = f.Name
	}
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "inline":
			t.Inline = true
		case "nullable":
			t.Nullable = true
		case "omitnil":
			t.OmitNil = true
		}
	}
	return t
}

// appendString writes s as a JSON string the way Python does. With ascii
// (ensure_ascii=True) only printable ASCII passes raw; without it only '"',
// '\' and C0 controls are escaped. A byte that does not start a valid UTF-8
// sequence is the surrogate U+DC00+byte, as Python's surrogateescape decodes
// it; with ascii it is written \udcXX, without ascii it is kept raw.
func appendString(b []byte, s string, ascii bool) []byte {
	const hex = "0123456789abcdef"
	u4 := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b = append(b, '\\', '"')
			case c == '\\':
				b = append(b, '\\', '\\')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20 || (c == 0x7f && ascii):
				b = u4(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if ascii {
				b = u4(b, 0xdc00+rune(c))
			} else {
				b = append(b, c)
			}
		case !ascii:
			b = append(b, s[i:i+size]...)
		case r > 0xffff:
			r -= 0x10000
			b = u4(b, 0xd800+(r>>10))
			b = u4(b, 0xdc00+(r&0x3ff))
		default:
			b = u4(b, r)
		}
		i += size
	}
	return append(b, '"')
}

// number writes a Number literal: integers verbatim (Python ints are exact),
// anything with a fraction or exponent as a Python float.
func (e *encoder) number(n Number) {
	if n.IsInteger() {
		e.buf = append(e.buf, n...)
		return
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !math.IsInf(f, 0) {
		e.buf = append(e.buf, n...)
		return
	}
	e.buf = pyfmt.AppendFloatJSON(e.buf, f)
}
