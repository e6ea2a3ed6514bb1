// Package fleetgen writes synthetic fleets of env.json documents for the
// fleet-mode tests and scripts/bench-fleet.sh: one real document as the
// template, grown to a realistic size with an --extended catalog file list,
// and per-node fields (probe_namespace, captured_at, provenance start time
// and duration) varied the way real nodes vary them. Test support only.
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
	nsMark       = "mnt:NODENAMESPACE000"
	capturedMark = "2000-01-01T00:00:00Z"
)

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
	set := func(path string, x any) error {
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
	if err := set("probe_namespace", nsMark); err != nil {
		return nil, err
	}
	if err := set("captured_at", capturedMark); err != nil {
		return nil, err
	}
	for p, x := range plants {
		if err := set(p, x); err != nil {
			return nil, err
		}
	}
	if size > 0 {
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
		if err := set("tensile_catalog.hipblaslt.menu.files", []any{}); err != nil {
			return nil, err
		}
		empty := len(pyjson.Encode(doc))
		set("tensile_catalog.hipblaslt.menu.files", files)
		per := (len(pyjson.Encode(doc)) - empty) / probe
		for i := probe; empty+per*len(files) < size; i++ {
			files = append(files, entry(i))
		}
		for empty+per*len(files) > size && len(files) > 0 {
			files = files[:len(files)-1]
		}
		set("tensile_catalog.hipblaslt.menu.files", files)
	}
	return pyjson.Encode(doc), nil
}

// Node returns node i's document from a template: its own namespace hash,
// capture time and provenance timings.
func Node(tmpl []byte, i int) []byte {
	s := string(tmpl)
	s = strings.Replace(s, nsMark, fmt.Sprintf("mnt:%016x", uint64(i)*0x9e3779b97f4a7c15), 1)
	s = strings.Replace(s, capturedMark, fmt.Sprintf("2026-12-03T08:%02d:%02dZ", i/60%60, i%60), 1)
	s = strings.Replace(s, `"duration_us": `, `"duration_us": `+strconv.Itoa(i+1), -1)
	return []byte(s)
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
