package triage

import (
	"slices"
	"strings"
	"sync"

	"aorta-probe/internal/knobs"
	"aorta-probe/schema/jsonschema"
)

// The canonical form: the one place a document's member order is fixed
// (docs/triage.md, "Canonical form"). docs/schema.md makes nested key
// order no contract, so Parse puts every object of a document in one
// order before anything compares, tallies, hashes or fingerprints it: the
// keys the schema names in the schema's order (the order aorta-probe
// writes, so a document as written is unchanged), env_vars in the knob
// registry's order (the order the probe writes its knobs), every other
// key after them in byte order. Two documents that differ only in member
// order then give the same diff, fleet result, metrics and labels.

// order is the member order of one object of the schema, and the orders
// below it.
type order struct {
	rank  map[string]int    // the schema's properties, in order
	child map[string]*order // each property's values
	extra *order            // the values of a free-key map (additionalProperties)
	items *order            // an array's items
}

// orders is the canonical order of an env document, built once from the
// generated JSON Schema (schema/jsonschema).
var orders = sync.OnceValue(func() *order {
	env, prov := jsonschema.Generate(nil)
	b := orderBuilder{docs: map[string]object{jsonschema.EnvID: env, jsonschema.ProvenanceID: prov}, refs: map[string]*order{}}
	root := b.node(env, env)
	ev := root.child["env_vars"]
	if ev == nil {
		ev = &order{}
		root.child["env_vars"] = ev
	}
	ev.rank = map[string]int{}
	for i, k := range knobs.All() {
		ev.rank[k.Name] = i
	}
	return root
})

// orderBuilder walks the schema: $ref (memoised, so shared and recursive
// definitions are built once), anyOf/oneOf (their object alternatives'
// properties merged), properties, additionalProperties and items.
type orderBuilder struct {
	docs map[string]object
	refs map[string]*order
}

func (b *orderBuilder) node(s, doc object) *order {
	if r, ok := s.Get("$ref"); ok {
		ref, _ := r.(string)
		key := ref
		if strings.HasPrefix(ref, "#") {
			id, _ := doc.Get("$id")
			key, _ = id.(string)
			key += ref
		}
		if o := b.refs[key]; o != nil {
			return o
		}
		o := &order{}
		b.refs[key] = o
		if t, tdoc := b.resolve(ref, doc); t != nil {
			b.fill(o, t, tdoc)
		}
		return o
	}
	o := &order{}
	b.fill(o, s, doc)
	return o
}

func (b *orderBuilder) fill(o *order, s, doc object) {
	if _, ok := s.Get("$ref"); ok {
		o.merge(b.node(s, doc))
	}
	if props, ok := s.Get("properties"); ok {
		pm, _ := props.(object)
		if o.rank == nil {
			o.rank, o.child = map[string]int{}, map[string]*order{}
		}
		for _, e := range pm {
			if _, seen := o.rank[e.Key]; !seen {
				ps, _ := e.Value.(object)
				o.rank[e.Key], o.child[e.Key] = len(o.rank), b.node(ps, doc)
			}
		}
	}
	if x, ok := s.Get("additionalProperties"); ok && o.extra == nil {
		if xs, ok := x.(object); ok {
			o.extra = b.node(xs, doc)
		}
	}
	if x, ok := s.Get("items"); ok && o.items == nil {
		if xs, ok := x.(object); ok {
			o.items = b.node(xs, doc)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		alts, _ := s.Get(kw)
		list, _ := alts.([]any)
		for _, a := range list {
			if as, ok := a.(object); ok {
				b.fill(o, as, doc)
			}
		}
	}
}

// resolve follows a $ref: "#/$defs/Name" within doc, or another
// document's $id; nil when it leads nowhere.
func (b *orderBuilder) resolve(ref string, doc object) (object, object) {
	id, frag, _ := strings.Cut(ref, "#")
	if id != "" {
		doc = b.docs[id]
	}
	s := doc
	for _, part := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if part == "" {
			continue
		}
		next, _ := s.Get(part)
		s, _ = next.(object)
	}
	return s, doc
}

// merge adds what o lacks from p (another alternative of one value).
func (o *order) merge(p *order) {
	if p == nil || p == o {
		return
	}
	if p.rank != nil && o.rank == nil {
		o.rank, o.child = map[string]int{}, map[string]*order{}
	}
	keys := make([]string, 0, len(p.rank))
	for k := range p.rank {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return p.rank[a] - p.rank[b] })
	for _, k := range keys {
		if _, seen := o.rank[k]; !seen {
			o.rank[k], o.child[k] = len(o.rank), p.child[k]
		}
	}
	if o.extra == nil {
		o.extra = p.extra
	}
	if o.items == nil {
		o.items = p.items
	}
}

// of is the order of a member's value (nil: every key in byte order).
func (o *order) of(key string) *order {
	if o == nil {
		return nil
	}
	if c, ok := o.child[key]; ok {
		return c
	}
	return o.extra
}

// itemsOf is the order of an array's items.
func (o *order) itemsOf() *order {
	if o == nil {
		return nil
	}
	return o.items
}

// compare orders two member keys: the schema's first, in its order, then
// the rest in byte order.
func (o *order) compare(a, b string) int {
	ra, aok := o.position(a)
	rb, bok := o.position(b)
	switch {
	case aok && bok:
		return ra - rb
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

func (o *order) position(key string) (int, bool) {
	if o == nil {
		return 0, false
	}
	r, ok := o.rank[key]
	return r, ok
}

// canonical puts v's objects, at every depth, in the canonical member
// order, in place.
func canonical(v any, o *order) {
	switch x := v.(type) {
	case object:
		less := func(a, b entry) int { return o.compare(a.Key, b.Key) }
		if !slices.IsSortedFunc(x, less) {
			slices.SortStableFunc(x, less)
		}
		for _, e := range x {
			canonical(e.Value, o.of(e.Key))
		}
	case []any:
		for _, e := range x {
			canonical(e, o.itemsOf())
		}
	}
}
