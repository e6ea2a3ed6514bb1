// Package jsonschema publishes the env.json document as JSON Schema (draft
// 2020-12) and checks documents against it with the standard library only
// (docs/schema.md).
//
// The schema is generated from the schema package's Go types by reflection:
// every struct is an object whose properties are its `py` tags in field
// order, all required (",omitnil" makes one optional) and no others allowed;
// a pointer or a ",nullable" slice or Map may be null; a Map is an object of
// free keys; Any is any value. The tables of schema/enums.go add the allowed
// values, the discriminators of ",inline" shapes and the version that
// introduced each key.
package jsonschema

import (
	"reflect"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// Draft is the JSON Schema dialect of the generated documents.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// The $id of the two documents; the env schema refers to the provenance
// schema by this relative name.
const (
	EnvID        = "env-1.16.schema.json"
	ProvenanceID = "probe-provenance.schema.json"
)

// Describe returns the description of a type (key "") or of one of its
// keys, or "". The published files take theirs from the doc comments of the
// schema package (see the test that writes them); validation needs none.
type Describe func(goType, key string) string

// Generate returns the env schema and the probe_provenance schema.
func Generate(describe Describe) (env, provenance pyjson.Map[any]) {
	if describe == nil {
		describe = func(string, string) string { return "" }
	}
	provType := reflect.TypeFor[schema.Provenance]()
	g := &generator{describe: describe, external: map[reflect.Type]string{provType: ProvenanceID}}
	env = g.document(reflect.TypeFor[schema.Snapshot](), EnvID,
		"aorta env.json, schema 1.16",
		"The document aorta-probe and the aorta Python probe write (schema_version 1.16), "+
			"40 keys in this order (documents of older 1.16 revisions have therock last, "+
			"after partial_reasons: "+OlderKeyOrder+"), then aorta-probe's optional probe_provenance extension. "+
			"Documents of schema 1.0 to 1.15 validate against it without the keys added after "+
			"their version (x-added-in). See docs/schema.md.")
	g.external = nil
	provenance = g.document(provType, ProvenanceID,
		"aorta-probe probe_provenance",
		"aorta-probe's extension block after the 40 keys: how the document was collected "+
			"(build, timings, probes, commands, isolation and placement evidence). "+
			"Absent with --no-provenance and in the Python probe's documents.")
	return env, provenance
}

// OlderKeyOrder is the env schema's annotation listing the other top-level
// key order a 1.16 document may have: the one of older 1.16 revisions of
// aorta, with therock last, after partial_reasons (docs/schema.md). The
// properties give the order the newest revision writes (therock right after
// rocm).
const OlderKeyOrder = "x-older-key-order"

// olderKeyOrder is the properties of env in the older 1.16 order: therock
// moved to follow partial_reasons.
func olderKeyOrder(env pyjson.Map[any]) []any {
	props, _ := env.Get("properties")
	var out []any
	for _, k := range props.(pyjson.Map[any]).Keys() {
		switch k {
		case "therock":
			continue
		case "partial_reasons":
			out = append(out, k, "therock")
			continue
		}
		out = append(out, k)
	}
	return out
}

type generator struct {
	describe Describe
	external map[reflect.Type]string // types that are the root of another document
	defs     pyjson.Map[any]
}

func (g *generator) document(root reflect.Type, id, title, desc string) pyjson.Map[any] {
	g.defs = pyjson.Map[any]{}
	doc := pyjson.Map[any]{
		{Key: "$schema", Value: Draft},
		{Key: "$id", Value: id},
		{Key: "title", Value: title},
		{Key: "description", Value: desc},
	}
	for _, e := range g.object(root) {
		if e.Key != "description" {
			doc = append(doc, e)
		}
	}
	if id == EnvID {
		doc.Set(OlderKeyOrder, olderKeyOrder(doc))
	}
	if len(g.defs) > 0 {
		doc.Set("$defs", g.defs)
	}
	return doc
}

// field is one member of an object shape.
type field struct {
	owner    string // Go type name, for the tables and descriptions
	key      string
	typ      reflect.Type
	nullable bool // ",nullable": a nil slice or Map is null
	optional bool // ",omitnil": the key may be absent
}

// shape is one set of members a struct can have; name is the type name
// plus "+Inlined" for each inline struct present (schema.Variants).
type shape struct {
	name    string
	members []field
}

// shapes expands the ",inline" pointers of t: each may be absent or present.
func shapes(t reflect.Type) []shape {
	out := []shape{{name: t.Name()}}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := pyjson.FieldTag(f)
		if tag.Skip {
			continue
		}
		if tag.Inline {
			inner := f.Type
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			var next []shape
			for _, s := range out {
				next = append(next, s)
				for _, is := range shapes(inner) {
					ms := append(append([]field{}, s.members...), is.members...)
					next = append(next, shape{name: s.name + "+" + is.name, members: ms})
				}
			}
			out = next
			continue
		}
		fd := field{owner: t.Name(), key: tag.Key, typ: f.Type, nullable: tag.Nullable, optional: tag.OmitNil}
		for i := range out {
			out[i].members = append(out[i].members, fd)
		}
	}
	return out
}

// object is the schema of struct t: one object, or oneOf its shapes.
func (g *generator) object(t reflect.Type) pyjson.Map[any] {
	out := pyjson.Map[any]{}
	if d := g.describe(t.Name(), ""); d != "" {
		out.Set("description", d)
	}
	ss := shapes(t)
	if len(ss) == 1 {
		return append(out, g.shape(ss[0])...)
	}
	var alts []any
	for _, s := range ss {
		alts = append(alts, g.shape(s))
	}
	out.Set("oneOf", alts)
	return out
}

func (g *generator) shape(s shape) pyjson.Map[any] {
	props := pyjson.Map[any]{}
	required := []any{}
	for _, f := range s.members {
		p := g.property(f)
		if pin, ok := schema.Variants[s.name][f.key]; ok {
			p = setEnum(p, pin, false)
		}
		props.Set(f.key, p)
		if !f.optional {
			required = append(required, f.key)
		}
	}
	out := pyjson.Map[any]{{Key: "type", Value: "object"}}
	if v, ok := schema.Variants[s.name]; ok && len(v) > 0 {
		out = pyjson.Map[any]{{Key: "title", Value: s.name}, {Key: "type", Value: "object"}}
	}
	out.Set("properties", props)
	out.Set("required", required)
	out.Set("additionalProperties", false)
	return out
}

func (g *generator) property(f field) pyjson.Map[any] {
	out := pyjson.Map[any]{}
	if d := g.describe(f.owner, f.key); d != "" {
		out.Set("description", d)
	}
	t := f.typ
	var s pyjson.Map[any]
	if f.optional && t.Kind() == reflect.Pointer {
		s = g.typ(t.Elem(), false) // omitted when nil, never null
	} else {
		s = g.typ(t, f.nullable)
	}
	if vals, ok := schema.Enums[f.owner+"."+f.key]; ok {
		s = setEnum(s, vals, true)
	}
	out = append(out, s...)
	if v, ok := schema.AddedIn[f.owner+"."+f.key]; ok {
		out.Set("x-added-in", v)
	}
	return out
}

// setEnum returns s (or s with its items) pinned to vals, null added when
// withNull and s allows null.
func setEnum(s pyjson.Map[any], vals []any, withNull bool) pyjson.Map[any] {
	if it, ok := s.Get("items"); ok {
		s.Set("items", setEnum(it.(pyjson.Map[any]), vals, withNull))
		return s
	}
	enum := append([]any{}, vals...)
	if withNull && allowsNull(s) && !containsNil(enum) {
		enum = append(enum, nil)
	}
	s.Set("enum", enum)
	return s
}

func allowsNull(s pyjson.Map[any]) bool {
	if ts, ok := s.Get("type"); ok {
		if l, ok := ts.([]any); ok {
			return containsAny(l, "null")
		}
	}
	return false
}

func containsNil(l []any) bool {
	for _, v := range l {
		if v == nil {
			return true
		}
	}
	return false
}

func containsAny(l []any, want any) bool {
	for _, v := range l {
		if v == want {
			return true
		}
	}
	return false
}

// typ is the schema of a value of Go type t.
func (g *generator) typ(t reflect.Type, nullable bool) pyjson.Map[any] {
	kind := func(k string) any {
		if nullable {
			return []any{k, "null"}
		}
		return k
	}
	switch {
	case t.Kind() == reflect.Interface:
		return pyjson.Map[any]{} // Any: any JSON value
	case isMap(t):
		return pyjson.Map[any]{{Key: "type", Value: kind("object")},
			{Key: "additionalProperties", Value: g.typ(t.Elem().Field(1).Type, false)}}
	case t.Kind() == reflect.Pointer:
		inner := g.typ(t.Elem(), false)
		if ts, ok := inner.Get("type"); ok {
			if s, ok := ts.(string); ok {
				inner.Set("type", []any{s, "null"})
				return inner
			}
		}
		return pyjson.Map[any]{{Key: "anyOf", Value: []any{inner, pyjson.Map[any]{{Key: "type", Value: "null"}}}}}
	case t.Kind() == reflect.Slice:
		return pyjson.Map[any]{{Key: "type", Value: kind("array")}, {Key: "items", Value: g.typ(t.Elem(), false)}}
	case t.Kind() == reflect.Struct:
		if id, ok := g.external[t]; ok {
			return pyjson.Map[any]{{Key: "$ref", Value: id}}
		}
		name := t.Name()
		if _, ok := g.defs.Get(name); !ok {
			g.defs.Set(name, nil) // reserve the position; guards recursion
			g.defs.Set(name, g.object(t))
		}
		return pyjson.Map[any]{{Key: "$ref", Value: "#/$defs/" + name}}
	case t.Kind() == reflect.String:
		return pyjson.Map[any]{{Key: "type", Value: kind("string")}}
	case t.Kind() == reflect.Bool:
		return pyjson.Map[any]{{Key: "type", Value: kind("boolean")}}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return pyjson.Map[any]{{Key: "type", Value: kind("integer")}}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return pyjson.Map[any]{{Key: "type", Value: kind("number")}}
	}
	panic("jsonschema: no schema for " + t.String())
}

// isMap reports whether t is a pyjson.Map instance (an ordered object).
func isMap(t reflect.Type) bool {
	return pyjson.IsMapType(t)
}
