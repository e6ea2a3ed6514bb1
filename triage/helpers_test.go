package triage

import (
	"testing"

	"aorta-probe/internal/fleetgen"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
)

// The documents these tests compare come from internal/testdoc: golden
// scenario documents with edits.
// (object, triage's own name for a decoded object, is testdoc.Object.)
type edit = testdoc.Edit

var (
	goldenBytes  = testdoc.GoldenBytes
	set          = testdoc.Set
	del          = testdoc.Del
	identityEdit = testdoc.Identity
	nsTypes      = testdoc.NSTypes
	hostIDs      = testdoc.HostIDs
	placed       = testdoc.Placed
	proven       = testdoc.Proven
	rootEdit     = testdoc.Root
	// hostRoot is the root of a host process on boot "boot:aa".
	hostRoot = testdoc.Root(pyjson.Number("2147483649"), "STATX_MNT_ID_UNIQUE", "259:1", pyjson.Number("2"))
)

// n is a JSON number.
func n(s string) pyjson.Number { return pyjson.Number(s) }

// doc builds a Document from a golden file and edits.
func doc(t testing.TB, name, goldenFile string, edits ...edit) *Document {
	t.Helper()
	d, err := Parse(name, string(pyjson.Encode(testdoc.Edited(t, goldenFile, edits...))))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

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

// minimal10 is the smallest env document: schema 1.0's thirteen
// top-level keys, every block null (jsonschema.CheckDocument).
const minimal10 = `{"schema_version": "1.0", "captured_at": null, "runtime_context": null, "docker": null, ` +
	`"rocm": null, "hip": null, "hipblaslt": null, "python_version": null, "pytorch_version": null, ` +
	`"env_vars": null, "system_health": null, "partial": null, "partial_reasons": null}`

// fleetTemplate is fleetgen.Template over the golden rocm-classic-7.2.json
// document: grown to about size bytes (0: as is), with set's fields.
func fleetTemplate(t testing.TB, size int, set map[string]any) []byte {
	t.Helper()
	tmpl, err := fleetgen.Template(goldenBytes(t, "rocm-classic-7.2.json"), size, set)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// writeFleet writes n documents from tmpl (planted ones at their index)
// into a new directory dir and returns it with the paths ExpandFleet
// lists.
func writeFleet(t testing.TB, n int, tmpl []byte, planted map[int][]byte) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	if err := fleetgen.Write(dir, n, tmpl, planted); err != nil {
		t.Fatal(err)
	}
	paths, err := ExpandFleet([]string{dir})
	if err != nil || len(paths) != n {
		t.Fatalf("ExpandFleet: %d paths, %v", len(paths), err)
	}
	return dir, paths
}

// num is a JSON integer as the decoder gives it.
func num(s string) any { return number(s) }

// withIDs is hostIDs with the ids of the named types replaced.
func withIDs(repl map[string]string) []any {
	out := append([]any{}, hostIDs...)
	for i, typ := range nsTypes {
		if v, ok := repl[typ]; ok {
			out[i] = num(v)
		}
	}
	return out
}
