// Package fleetgen writes synthetic fleets of env.json documents for the
// fleet-mode tests and scripts/bench-fleet.sh: one real document as the
// template, grown to a realistic size with an --extended catalog file list,
// and every per-node field varied the way real nodes vary it
// (docs/triage.md, "Fleet"): captured_at and probe_provenance.started_at
// to the microsecond, every duration_us (the run's, each probe's, each
// command's) on its own, probe_namespace and docker.container_id, and
// probe_provenance.identity: a boot fingerprint per machine (NodesPerBoot
// documents, a rank per GPU, share one) and namespace ids and inode hashes
// of each document's own. The documents carry no host name (env.json has
// no such field). Test support only.
package fleetgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"aorta-probe/internal/pyjson"
)

// Placeholders the template carries where each node writes its own value.
const (
	nsMark        = "mnt:NODENAMESPACE000"
	capturedMark  = "2000-01-01T00:00:00Z"
	startedMark   = "2000-01-01T00:00:00.000000Z"
	containerMark = "NODECONTAINER000"
	bootMark      = "boot:NODEBOOT00000000"
	idMark        = `"NODENSID-`  // "NODENSID-mnt": the number id
	inodeMark     = `:NODEINODE"` // "mnt:NODEINODE": the inode hash
	durationKey   = `"duration_us": `
)

// NodesPerBoot is how many documents of a fleet share one boot
// fingerprint: one per GPU rank of an 8-GPU machine, each in its own
// container.
const NodesPerBoot = 8

// nsTypes are the namespace types probe_provenance.identity records, in
// its order (docs/isolation.md#placement-identity).
var nsTypes = []string{"mnt", "net", "pid", "user", "uts", "ipc", "cgroup", "time"}

// Template decodes base, sets the per-node placeholders, grows
// tensile_catalog.hipblaslt.menu.files until the document is about size
// bytes (0: not grown), applies the plants (dotted path -> value; the
// path must exist) and encodes it as the probe does.
func Template(base []byte, size int, plants map[string]any) ([]byte, error) {
	v, err := pyjson.Decode(string(base))
	if err != nil {
		return nil, err
	}
	doc, ok := v.(pyjson.Map[any])
	if !ok {
		return nil, fmt.Errorf("the base document is not an object")
	}
	set := func(path string, x any) error { return setPath(doc, path, x) }
	if err := set("probe_namespace", nsMark); err != nil {
		return nil, err
	}
	if err := set("captured_at", capturedMark); err != nil {
		return nil, err
	}
	if err := set("probe_provenance.started_at", startedMark); err != nil {
		return nil, err
	}
	if d, _ := doc.Get("docker"); d != nil {
		if err := set("docker.container_id", containerMark); err != nil {
			return nil, err
		}
	}
	var nss []any
	for _, t := range nsTypes {
		nss = append(nss, pyjson.Map[any]{
			{Key: "type", Value: t},
			{Key: "id", Value: "NODENSID-" + t},
			{Key: "source", Value: "NS_GET_ID"},
			{Key: "reason", Value: nil},
			{Key: "inode_hash", Value: t + ":NODEINODE"},
		})
	}
	if err := set("probe_provenance.identity", pyjson.Map[any]{
		{Key: "grade", Value: "proof"},
		{Key: "answered_by", Value: "kernel"},
		{Key: "boot", Value: pyjson.Map[any]{{Key: "fingerprint", Value: bootMark}, {Key: "reason", Value: nil}}},
		{Key: "namespaces", Value: nss},
	}); err != nil {
		return nil, err
	}
	for p, x := range plants {
		if err := set(p, x); err != nil {
			return nil, err
		}
	}
	if size > 0 {
		if err := grow(doc, size); err != nil {
			return nil, err
		}
	}
	return pyjson.Encode(doc), nil
}

// setPath sets the member at the dotted path of doc to x, in place; the
// path must exist.
func setPath(doc pyjson.Map[any], path string, x any) error {
	keys := strings.Split(path, ".")
	m := doc
	for _, k := range keys[:len(keys)-1] {
		next, _ := m.Get(k)
		var ok bool
		if m, ok = next.(pyjson.Map[any]); !ok {
			return fmt.Errorf("%s: %s is not an object", path, k)
		}
	}
	if _, ok := m.Get(keys[len(keys)-1]); !ok {
		return fmt.Errorf("%s: no such key", path)
	}
	m.Set(keys[len(keys)-1], x) // in place: the key exists
	return nil
}

// grow fills tensile_catalog.hipblaslt.menu.files of doc until it
// encodes to about size bytes (Template); the member must exist.
func grow(doc pyjson.Map[any], size int) error {
	entry := func(i int) any {
		return pyjson.Map[any]{
			{Key: "name", Value: fmt.Sprintf("TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx942_%05d.co", i)},
			{Key: "size", Value: pyjson.Number(strconv.Itoa(1000 + i))},
			{Key: "suffix", Value: ".co"},
			{Key: "is_logic", Value: false},
			{Key: "sha256", Value: fmt.Sprintf("sha256:%064x", i*7919)},
		}
	}
	// Measure one entry's encoded size, then add as many as fit.
	const probe = 100
	var files []any
	for i := range probe {
		files = append(files, entry(i))
	}
	if err := setPath(doc, "tensile_catalog.hipblaslt.menu.files", []any{}); err != nil {
		return err
	}
	empty := len(pyjson.Encode(doc))
	setPath(doc, "tensile_catalog.hipblaslt.menu.files", files)
	per := (len(pyjson.Encode(doc)) - empty) / probe
	for i := probe; empty+per*len(files) < size; i++ {
		files = append(files, entry(i))
	}
	for empty+per*len(files) > size && len(files) > 0 {
		files = files[:len(files)-1]
	}
	return setPath(doc, "tensile_catalog.hipblaslt.menu.files", files)
}

// Node returns node i's document from a template: its own capture and
// start times, durations, namespace ids, inode hashes, namespace hash and
// container id, and the boot fingerprint of its machine (i/NodesPerBoot).
func Node(tmpl []byte, i int) []byte {
	r := seeded(uint64(i))
	s := string(tmpl)
	s = strings.Replace(s, nsMark, fmt.Sprintf("mnt:%016x", r.next()), 1)
	s = strings.Replace(s, capturedMark, fmt.Sprintf("2026-12-03T%02d:%02d:%02dZ", i/3600%24, i/60%60, i%60), 1)
	s = strings.Replace(s, startedMark, fmt.Sprintf("2026-12-03T%02d:%02d:%02d.%06dZ", i/3600%24, i/60%60, i%60, r.next()%1000000), 1)
	s = strings.Replace(s, containerMark, fmt.Sprintf("%016x%016x", r.next(), r.next()), 1)
	boot := seeded(uint64(i/NodesPerBoot) | 1<<63)
	s = strings.Replace(s, bootMark, fmt.Sprintf("boot:%016x", boot.next()), 1)
	var b strings.Builder
	b.Grow(len(s) + len(s)/50)
	marks := []string{idMark, inodeMark, durationKey}
	next := make([]int, len(marks)) // where each mark occurs next in s, -1: no more
	for k, m := range marks {
		next[k] = strings.Index(s, m)
	}
	for {
		// The earliest of the three per-occurrence marks.
		at, kind := -1, 0
		for k, j := range next {
			if j >= 0 && (at < 0 || j < at) {
				at, kind = j, k
			}
		}
		if at < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:at])
		var rest int // where s continues after this mark
		switch kind {
		case 0: // "NODENSID-mnt" -> a number: ids are per-boot counters, unique per document here
			rest = strings.IndexByte(s[at+1:], '"') + at + 2
			b.WriteString(strconv.FormatUint(4026531840+uint64(i)*16+r.next()%16, 10))
		case 1: // ":NODEINODE" -> ":" + 16 hex digits
			fmt.Fprintf(&b, ":%016x\"", r.next())
			rest = at + len(inodeMark)
		case 2: // "duration_us": N -> a duration of this node's own
			b.WriteString(durationKey)
			rest = at + len(durationKey)
			for rest < len(s) && s[rest] >= '0' && s[rest] <= '9' {
				rest++
			}
			if rest > at+len(durationKey) { // not null
				b.WriteString(strconv.FormatUint(1+r.next()%900000, 10))
			}
		}
		s = s[rest:]
		for k := range next {
			if next[k] >= 0 {
				next[k] -= rest
			}
			if k == kind {
				if j := strings.Index(s, marks[k]); j >= 0 {
					next[k] = j
				} else {
					next[k] = -1
				}
			}
		}
	}
	return []byte(b.String())
}

// rng is splitmix64: a reproducible stream of numbers per node.
type rng uint64

// seeded starts a stream at a scrambled seed, so that the streams of
// nodes i and i+1 do not overlap.
func seeded(seed uint64) rng {
	r := rng(seed)
	return rng(r.next())
}

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Write writes n nodes into dir as node-NNNN.json; planted maps a node
// index to its own template (an outlier).
func Write(dir string, n int, tmpl []byte, planted map[int][]byte) error {
	for i := range n {
		t := tmpl
		if p, ok := planted[i]; ok {
			t = p
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("node-%04d.json", i)), Node(t, i), 0o644); err != nil {
			return err
		}
	}
	return nil
}
