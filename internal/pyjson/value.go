package pyjson

import (
	"reflect"
	"sort"
	"strings"
)

// Entry is one member of a Map.
type Entry[V any] struct {
	Key   string
	Value V
}

// Map is a JSON object whose members keep insertion order, as a Python dict
// does. Set on an existing key replaces the value in place.
type Map[V any] []Entry[V]

func (Map[V]) isObject() {}

// Set stores v under k, keeping k's first position when it already exists.
func (m *Map[V]) Set(k string, v V) {
	for i := range *m {
		if (*m)[i].Key == k {
			(*m)[i].Value = v
			return
		}
	}
	*m = append(*m, Entry[V]{k, v})
}

// Get returns the value stored under k.
func (m Map[V]) Get(k string) (V, bool) {
	for _, e := range m {
		if e.Key == k {
			return e.Value, true
		}
	}
	var zero V
	return zero, false
}

// Keys returns the keys in order.
func (m Map[V]) Keys() []string {
	ks := make([]string, len(m))
	for i, e := range m {
		ks[i] = e.Key
	}
	return ks
}

// Sorted is m as a Map in key order (Go's byte order, as Python's
// sorted() orders str keys that are ASCII).
func Sorted[V any](m map[string]V) Map[V] {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(Map[V], 0, len(keys))
	for _, k := range keys {
		out = append(out, Entry[V]{Key: k, Value: m[k]})
	}
	return out
}

// Number is a JSON number literal exactly as it was read. Integers are
// re-encoded verbatim; a literal with a fraction or exponent is re-encoded
// as a Python float (1e5 becomes 100000.0), as json.loads + json.dumps do.
type Number string

// IsInteger reports whether n has neither fraction nor exponent.
func (n Number) IsInteger() bool {
	return n != "" && !strings.ContainsAny(string(n), ".eEnNI")
}

// Any is a JSON value of unknown shape passed through from a source
// (rdhc output, TheRock patches): nil, bool, Number, string, []any or
// Map[any], as Decode returns it.
type Any = any

// IsMapType reports whether t is a Map type (of any value type): what the
// encoder writes as an object of free keys. The JSON Schema generator reads
// the document types through it.
func IsMapType(t reflect.Type) bool { return t.Implements(objectType) }
