package triage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// golden reads a scenario document the probe wrote (testdata/golden).
func golden(t testing.TB, name string) object {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	v, err := pyjson.Decode(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return v.(object)
}

// edit is a change to a decoded document.
type edit func(t testing.TB, m object) object

// set replaces (or adds) the value at a dotted path; parents must exist.
func set(path string, v any) edit {
	return func(t testing.TB, m object) object {
		return setIn(t, m, strings.Split(path, "."), v, false)
	}
}

// del removes the key at a dotted path.
func del(path string) edit {
	return func(t testing.TB, m object) object {
		return setIn(t, m, strings.Split(path, "."), nil, true)
	}
}

func setIn(t testing.TB, m object, keys []string, v any, remove bool) object {
	t.Helper()
	out := make(object, 0, len(m)+1)
	found := false
	for _, e := range m {
		if e.Key != keys[0] {
			out = append(out, e)
			continue
		}
		found = true
		switch {
		case len(keys) > 1:
			child, ok := e.Value.(object)
			if !ok {
				t.Fatalf("%s is not an object", strings.Join(keys, "."))
			}
			out = append(out, pyjson.Entry[any]{Key: e.Key, Value: setIn(t, child, keys[1:], v, remove)})
		case !remove:
			out = append(out, pyjson.Entry[any]{Key: e.Key, Value: v})
		}
	}
	if !found {
		if len(keys) > 1 || remove {
			t.Fatalf("no key %s", strings.Join(keys, "."))
		}
		out = append(out, pyjson.Entry[any]{Key: keys[0], Value: v})
	}
	return out
}

// doc builds a Document from a golden file and edits.
func doc(t testing.TB, name, goldenFile string, edits ...edit) *Document {
	t.Helper()
	m := golden(t, goldenFile)
	for _, e := range edits {
		m = e(t, m)
	}
	d, err := Parse(name, string(pyjson.Encode(m)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// placed gives a document a namespace, as a run with /proc has.
var placed = set("probe_namespace", "mnt:50d635339c5cddd4")

// schema17 strips a document to the keys schema 1.7 had (docs/triage.md):
// no provenance, no blocks added in 1.8 to 1.16.
var schema17 = []edit{
	set("schema_version", "1.7"),
	del("probe_provenance"),
	del("amdgpu_driver"), del("container_detected"), del("execution_context"),
	del("probe_namespace"), del("buck_invocation"), del("torchrec"),
	del("tensile_catalog"), del("miopen_catalog"), del("rocfft_catalog"), del("therock"),
	del("rocm.root"), del("rocm.lib_root"), del("rocm.root_source"), del("rocm.layout"), del("rocm.version_source"),
	del("triton.commit"), del("fbgemm.commit"),
	del("hipblaslt.upstream_commit"), del("hipblaslt.upstream_commit_matches_tweak"),
}
