package jsonschema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"aorta-probe/internal/pyjson"
)

// Problem is one way a document departs from the schema.
type Problem struct {
	// Path locates the value: $ for the document, then .key or ["key"]
	// for members and [i] for array items, e.g. $.rocm.version.
	Path string
	// Msg says what is wrong, e.g. "expected string or null, got 3".
	Msg string
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// schemas are the two generated documents by $id, built once.
var schemas = sync.OnceValue(func() map[string]pyjson.Map[any] {
	env, prov := Generate(nil)
	return map[string]pyjson.Map[any]{EnvID: env, ProvenanceID: prov}
})

// Validate checks an env.json document as pyjson.Decode returns it and
// returns its problems in document order, nil when it is valid.
//
// The document's own schema_version decides the rules (docs/schema.md):
// "1.16" is checked in full, top-level key order included (either order of
// 1.16: therock after rocm, or last as older revisions wrote it); "1.0" to "1.15"
// against the 1.16 shape, except that a key added after that version may be
// missing and the top-level order is not checked (it changed in 1.10 and
// 1.16). Any other value of schema_version is itself a problem and the rest
// is checked as 1.16.
func Validate(doc any) []Problem { return validate(doc, true) }

// Count is len(Validate(doc)) without building the problems' paths, the
// most of Validate's work on a valid document: diff --fleet counts the
// problems of thousands of documents (docs/triage.md, "Fleet").
func Count(doc any) int { return len(validate(doc, false)) }

// validate is Validate; without paths every Problem.Path is "".
func validate(doc any, paths bool) []Problem {
	v := &validator{docs: schemas(), minor: 16, paths: paths}
	if sv, err := schemaVersion(doc); err == nil {
		if n, ok := parseMinor(sv); ok {
			v.minor = n
		}
	}
	root := v.docs[EnvID]
	v.check(root, root, doc, "$")
	if m, ok := doc.(pyjson.Map[any]); ok && v.minor == 16 {
		v.checkOrder(root, m)
	}
	return v.problems
}

// CheckDocument is the one test of "is this an aorta env document at all",
// shared by `validate` and `diff` (docs/schema.md, docs/triage.md): doc
// (as pyjson.Decode returns it) is a JSON object whose schema_version is a
// string "1.…" and that has every top-level key its schema version
// requires (every writer writes them all, null when nothing was found).
// It returns that schema_version, or an error saying why doc is not one,
// in validate's words: "the top level is an array, not an object", "no
// schema_version", `schema_version "2.0" is not 1.x`, "schema_version is
// a number (1.16), not a string", "$.captured_at: missing, and 38 more
// top-level keys of schema 1.16". A document that passes may still have
// problems (Validate: a wrong-typed or missing field inside a block); one
// that fails is, for validate, a document with the problems Validate lists
// (exit 1), and for diff no document at all (exit 2).
func CheckDocument(doc any) (string, error) {
	s, err := schemaVersion(doc)
	if err != nil {
		return "", err
	}
	minor, ok := parseMinor(s)
	if !ok {
		minor = 16 // a later minor is checked as 1.16 (Validate)
	}
	m := doc.(pyjson.Map[any])
	root := schemas()[EnvID]
	props, _ := root.Get("properties")
	pm, _ := props.(pyjson.Map[any])
	req, _ := root.Get("required")
	v := &validator{minor: minor}
	var missing []string
	for _, k := range req.([]any) {
		key := k.(string)
		if _, has := m.Get(key); has {
			continue
		}
		if p, ok := pm.Get(key); ok && v.addedLater(p.(pyjson.Map[any])) {
			continue
		}
		missing = append(missing, key)
	}
	switch len(missing) {
	case 0:
		return s, nil
	case 1:
		return "", fmt.Errorf("%s: missing", member("$", missing[0]))
	}
	return "", fmt.Errorf("%s: missing, and %d more top-level keys of schema 1.%d", member("$", missing[0]), len(missing)-1, minor)
}

// schemaVersion is the first half of CheckDocument: doc is an object whose
// schema_version is a string "1.…" (Validate reads its minor from it).
func schemaVersion(doc any) (string, error) {
	m, ok := doc.(pyjson.Map[any])
	if !ok {
		return "", fmt.Errorf("the top level is %s, not an object", kindOf(doc))
	}
	sv, ok := m.Get("schema_version")
	if !ok {
		return "", errors.New("no schema_version")
	}
	s, ok := sv.(string)
	if !ok {
		switch sv.(type) {
		case pyjson.Map[any], []any:
			return "", fmt.Errorf("schema_version is %s, not a string", kindOf(sv))
		}
		return "", fmt.Errorf("schema_version is %s (%s), not a string", kindOf(sv), show(sv))
	}
	if !strings.HasPrefix(s, "1.") {
		return "", fmt.Errorf("schema_version %s is not 1.x", show(sv))
	}
	return s, nil
}

// kindOf names the JSON type of a decoded value with its article.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case pyjson.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// ValidateJSON decodes text as Python's json.loads does and validates it. The
// error is the decoder's, when text is not JSON.
func ValidateJSON(text string) ([]Problem, error) {
	doc, err := pyjson.Decode(text)
	if err != nil {
		return nil, err
	}
	return Validate(doc), nil
}

// parseMinor returns N of "1.N", 0 <= N <= 16, written without leading zeros.
func parseMinor(v any) (int, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	rest, ok := strings.CutPrefix(s, "1.")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n > 16 || strings.HasPrefix(rest, "+") {
		return 0, false
	}
	return n, true
}

type validator struct {
	docs     map[string]pyjson.Map[any]
	minor    int  // the document's schema 1.N
	paths    bool // build each value's path (Count does not)
	problems []Problem
}

// member is path's member key, or "" when no path is built.
func (v *validator) member(path, key string) string {
	if !v.paths {
		return ""
	}
	return member(path, key)
}

// item is path's array item i, or "" when no path is built.
func (v *validator) item(path string, i int) string {
	if !v.paths {
		return ""
	}
	return path + "[" + strconv.Itoa(i) + "]"
}

func (v *validator) add(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// resolve follows a $ref: "#/$defs/Name" within doc, or another document's $id.
func (v *validator) resolve(ref string, doc pyjson.Map[any]) (s, in pyjson.Map[any]) {
	id, frag, _ := strings.Cut(ref, "#")
	if id != "" {
		doc = v.docs[id]
	}
	if doc == nil {
		panic("jsonschema: unresolved $ref " + ref)
	}
	s = doc
	for _, part := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if part == "" {
			continue
		}
		next, _ := s.Get(part)
		s, _ = next.(pyjson.Map[any])
		if s == nil {
			panic("jsonschema: unresolved $ref " + ref)
		}
	}
	return s, doc
}

// check validates val against s, a schema inside the document doc, and
// appends what is wrong. It handles the keywords Generate emits: $ref,
// anyOf, oneOf, type, enum, properties, required, additionalProperties,
// items; annotations (description, title, x-added-in) are ignored.
func (v *validator) check(s, doc pyjson.Map[any], val any, path string) {
	if ref, ok := s.Get("$ref"); ok {
		t, tdoc := v.resolve(ref.(string), doc)
		v.check(t, tdoc, val, path)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if alts, ok := s.Get(kw); ok {
			v.alternatives(kw, alts.([]any), doc, val, path)
		}
	}
	if ts, ok := s.Get("type"); ok {
		types := typeList(ts)
		if !typeMatches(types, val) {
			v.add(path, "expected %s, got %s", orList(types), show(val))
			return
		}
	}
	if enum, ok := s.Get("enum"); ok {
		if !inEnum(enum.([]any), val) {
			var vals []string
			for _, e := range enum.([]any) {
				vals = append(vals, show(e))
			}
			v.add(path, "expected one of %s, got %s", strings.Join(vals, ", "), show(val))
			return
		}
	}
	switch val := val.(type) {
	case pyjson.Map[any]:
		v.object(s, doc, val, path)
	case []any:
		if items, ok := s.Get("items"); ok {
			for i, it := range val {
				v.check(items.(pyjson.Map[any]), doc, it, v.item(path, i))
			}
		}
	}
}

func (v *validator) object(s, doc pyjson.Map[any], val pyjson.Map[any], path string) {
	props, _ := s.Get("properties")
	pm, _ := props.(pyjson.Map[any])
	if req, ok := s.Get("required"); ok {
		for _, k := range req.([]any) {
			key := k.(string)
			if _, ok := val.Get(key); ok {
				continue
			}
			if p, ok := pm.Get(key); ok && v.addedLater(p.(pyjson.Map[any])) {
				continue
			}
			v.add(v.member(path, key), "missing")
		}
	}
	extra, _ := s.Get("additionalProperties") // absent: any member allowed
	for _, e := range val {
		if p, ok := pm.Get(e.Key); ok {
			v.check(p.(pyjson.Map[any]), doc, e.Value, v.member(path, e.Key))
			continue
		}
		switch x := extra.(type) {
		case bool:
			if !x {
				v.add(v.member(path, e.Key), "unexpected key")
			}
		case pyjson.Map[any]:
			v.check(x, doc, e.Value, v.member(path, e.Key))
		}
	}
}

// addedLater reports whether the property was introduced after the
// document's schema version.
func (v *validator) addedLater(p pyjson.Map[any]) bool {
	a, ok := p.Get("x-added-in")
	if !ok {
		return false
	}
	n, ok := parseMinor(a)
	return ok && n > v.minor
}

// alternatives handles anyOf/oneOf. A value that matches no alternative's
// type gets one "expected A or B" problem; otherwise the problems of the
// closest alternative (fewest problems, first on a tie) are reported.
func (v *validator) alternatives(kw string, alts []any, doc pyjson.Map[any], val any, path string) {
	var best []Problem
	matched, bestSet := 0, false
	var types []string
	for _, a := range alts {
		as := a.(pyjson.Map[any])
		ts := v.typesOf(as, doc)
		types = append(types, ts...)
		if !typeMatches(ts, val) {
			continue
		}
		sub := &validator{docs: v.docs, minor: v.minor, paths: v.paths}
		sub.check(as, doc, val, path)
		if len(sub.problems) == 0 {
			matched++
			continue
		}
		if !bestSet || len(sub.problems) < len(best) {
			best, bestSet = sub.problems, true
		}
	}
	switch {
	case matched == 1 || (matched > 1 && kw == "anyOf"):
	case matched > 1:
		v.add(path, "matches more than one alternative of oneOf")
	case bestSet:
		v.problems = append(v.problems, best...)
	default:
		v.add(path, "expected %s, got %s", orList(dedupe(types)), show(val))
	}
}

// typesOf returns the JSON types an alternative allows, following $ref;
// nil means any.
func (v *validator) typesOf(s, doc pyjson.Map[any]) []string {
	if ref, ok := s.Get("$ref"); ok {
		t, tdoc := v.resolve(ref.(string), doc)
		return v.typesOf(t, tdoc)
	}
	if ts, ok := s.Get("type"); ok {
		return typeList(ts)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if alts, ok := s.Get(kw); ok {
			var out []string
			for _, a := range alts.([]any) {
				out = append(out, v.typesOf(a.(pyjson.Map[any]), doc)...)
			}
			return dedupe(out)
		}
	}
	return nil
}

// checkOrder reports the first top-level key out of order: a 1.16 document
// may have either order of 1.16 (the properties' order, or the older
// revisions' one with therock last, OlderKeyOrder). Keys the schema does
// not know are skipped (they are reported already). A document in neither
// order is reported against the one its therock placement suggests.
func (v *validator) checkOrder(root, doc pyjson.Map[any]) {
	props, _ := root.Get("properties")
	pm := props.(pyjson.Map[any])
	newer := pm.Keys()
	var older []string
	if o, ok := root.Get(OlderKeyOrder); ok {
		for _, k := range o.([]any) {
			older = append(older, k.(string))
		}
	}
	var keys []string
	for _, k := range doc.Keys() {
		if _, known := pm.Get(k); known {
			keys = append(keys, k)
		}
	}
	want, got, ok := orderDivergence(keys, newer, doc)
	if ok || older == nil {
		if !ok {
			v.add("$", "keys out of order: expected %s, got %s", show(want), show(got))
		}
		return
	}
	ow, og, ook := orderDivergence(keys, older, doc)
	if ook {
		return
	}
	if therockLast(keys) {
		want, got = ow, og
	}
	v.add("$", "keys out of order: expected %s, got %s", show(want), show(got))
}

// orderDivergence compares keys (the document's known keys, in its order)
// with order restricted to the keys doc has: ok, or the first place they
// differ.
func orderDivergence(keys, order []string, doc pyjson.Map[any]) (want, got string, ok bool) {
	var w []string
	for _, k := range order {
		if _, has := doc.Get(k); has {
			w = append(w, k)
		}
	}
	for i, k := range keys {
		if i >= len(w) || k != w[i] {
			if i < len(w) {
				return w[i], k, false
			}
			return "", k, false
		}
	}
	return "", "", true
}

// therockLast reports whether therock comes after partial_reasons in keys.
func therockLast(keys []string) bool {
	pr := -1
	for i, k := range keys {
		switch k {
		case "partial_reasons":
			pr = i
		case "therock":
			return pr >= 0
		}
	}
	return false
}

func typeList(ts any) []string {
	switch t := ts.(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, len(t))
		for i, x := range t {
			out[i] = x.(string)
		}
		return out
	}
	return nil
}

func dedupe(l []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// typeMatches reports whether val has one of the JSON types; nil allows all.
func typeMatches(types []string, val any) bool {
	if types == nil {
		return true
	}
	for _, t := range types {
		if jsonType(val, t) {
			return true
		}
	}
	return false
}

func jsonType(val any, t string) bool {
	switch t {
	case "null":
		return val == nil
	case "boolean":
		_, ok := val.(bool)
		return ok
	case "string":
		_, ok := val.(string)
		return ok
	case "number":
		_, ok := val.(pyjson.Number)
		return ok
	case "integer":
		n, ok := val.(pyjson.Number)
		return ok && n.IsInteger()
	case "array":
		_, ok := val.([]any)
		return ok
	case "object":
		_, ok := val.(pyjson.Map[any])
		return ok
	}
	return false
}

func inEnum(enum []any, val any) bool {
	for _, e := range enum {
		switch e := e.(type) {
		case nil:
			if val == nil {
				return true
			}
		case string, bool:
			if val == e {
				return true
			}
		}
	}
	return false
}

// orList joins ["a", "b", "c"] as "a, b or c".
func orList(l []string) string {
	if len(l) <= 1 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " or " + l[len(l)-1]
}

// show renders a value for a message: scalars as compact JSON (long
// strings cut), containers as "object" or "array".
func show(val any) string {
	switch val.(type) {
	case pyjson.Map[any]:
		return "object"
	case []any:
		return "array"
	}
	s := string(pyjson.EncodeCompact(val))
	if len(s) > 80 {
		s = s[:76] + `..."`
	}
	return s
}

// member is the path of key inside path: .key for identifiers, else
// ["key"] with the key as a JSON string.
func member(path, key string) string {
	ident := key != ""
	for i, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return path + "." + key
	}
	return path + "[" + string(pyjson.EncodeCompact(key)) + "]"
}
