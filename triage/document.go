package triage

import (
	"fmt"
	"os"
	"strings"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema/jsonschema"
)

// The seam to the project's Python-compatible codec (internal/pyjson):
// nothing else in this package names it.

// decodeJSON parses text as Python's json.loads does.
func decodeJSON(text string) (any, error) { return pyjson.Decode(text) }

// object is a decoded JSON object, members in document order.
type object = pyjson.Map[any]

// entry is one member of a decoded object.
type entry = pyjson.Entry[any]

// number is a decoded JSON number literal.
type number = pyjson.Number

// Document is one decoded env.json of schema 1.x.
type Document struct {
	// Name is how the user named it (a path, or "-" for stdin).
	Name string
	// Schema is schema_version ("1.16").
	Schema string
	// Problems counts what `aorta-probe validate` reports in it
	// (jsonschema.Count, without building the problems' paths): diff compares the document anyway and notes
	// the count on stderr.
	Problems int
	root     object
}

// Parse decodes text as an aorta env document, in the canonical form
// every comparison works on (canonical.go: nested key order is no
// contract). The error says what is wrong in one line: the decoder's
// message, or why the JSON value is not an env document (not an object,
// no schema_version, not 1.x).
func Parse(name, text string) (*Document, error) {
	d, err := parse(name, text)
	if err != nil {
		return nil, err
	}
	canonical(d.root, orders())
	return d, nil
}

// parse decodes text as Parse does and leaves every object's members in
// the order the document wrote them.
func parse(name, text string) (*Document, error) {
	v, err := decodeJSON(text)
	if err != nil {
		return nil, fmt.Errorf("%s: not JSON: %v", name, err)
	}
	// validate's test (docs/triage.md): only what is no env document at
	// all is refused; a wrong-typed field is counted in Problems.
	s, err := jsonschema.CheckDocument(v)
	if err != nil {
		return nil, fmt.Errorf("%s: not an aorta env document: %v", name, err)
	}
	problems := jsonschema.Count(v)
	return &Document{Name: name, Schema: s, Problems: problems, root: v.(object)}, nil
}

// SchemaNote is diff's stderr note on a document it compared although
// validate finds problems in it, "" when there are none.
func SchemaNote(name string, problems int) string {
	if problems == 0 {
		return ""
	}
	s := "s"
	if problems == 1 {
		s = ""
	}
	return fmt.Sprintf("aorta-probe diff: %s: %d schema problem%s (run aorta-probe validate %s)", name, problems, s, name)
}

// ReadFile reads and parses the document at path; "-" reads stdin.
func ReadFile(path string, stdin *os.File) (*Document, error) {
	text, err := readInput(path, stdin)
	if err != nil {
		return nil, err
	}
	return Parse(path, text)
}

// ReadWritten reads the document at path as ReadFile does, its members
// left in the order it wrote them: what the brief and --field show of a
// document (aorta-probe --summary DOC, --field PATH DOC, cli/capture)
// is the document as written, not the canonical form comparisons use.
func ReadWritten(path string, stdin *os.File) (*Document, error) {
	text, err := readInput(path, stdin)
	if err != nil {
		return nil, err
	}
	return parse(path, text)
}

// Root is the whole document as pyjson.Decode returned it, canonical
// or as written (ReadWritten).
func (d *Document) Root() any { return d.root }

// Lookup returns the value at a dotted path and whether every key on the
// way exists. A null parent makes the child absent.
func (d *Document) Lookup(path string) (any, bool) {
	return lookup(d.root, strings.Split(path, "."))
}

func lookup(v any, keys []string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(object)
		if !ok {
			return nil, false
		}
		if v, ok = m.Get(k); !ok {
			return nil, false
		}
	}
	return v, true
}
