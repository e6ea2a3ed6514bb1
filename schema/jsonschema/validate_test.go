package jsonschema

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

func goldens(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../../testdata/golden/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

func load(t *testing.T, name string) pyjson.Map[any] {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/golden", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := pyjson.Decode(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc.(pyjson.Map[any])
}

// walk returns the object holding the last element of the dotted path.
func walk(t *testing.T, doc pyjson.Map[any], path string) (pyjson.Map[any], string) {
	t.Helper()
	parts := strings.Split(path, ".")
	m := doc
	for _, p := range parts[:len(parts)-1] {
		v, ok := m.Get(p)
		if !ok {
			t.Fatalf("no %s in %s", p, path)
		}
		m = v.(pyjson.Map[any])
	}
	return m, parts[len(parts)-1]
}

func set(t *testing.T, doc pyjson.Map[any], path string, v any) {
	m, k := walk(t, doc, path)
	if _, ok := m.Get(k); !ok {
		t.Fatalf("no %s", path)
	}
	m.Set(k, v)
}

// del removes a key; it returns the document because removing a top-level
// key shortens the slice.
func del(t *testing.T, doc pyjson.Map[any], path string) pyjson.Map[any] {
	t.Helper()
	parent, k := walk(t, doc, path)
	i := -1
	for j, e := range parent {
		if e.Key == k {
			i = j
		}
	}
	if i < 0 {
		t.Fatalf("no %s", path)
	}
	pruned := append(parent[:i:i], parent[i+1:]...)
	if !strings.Contains(path, ".") {
		return pruned
	}
	pp, pk := walk(t, doc, path[:strings.LastIndex(path, ".")])
	pp.Set(pk, pruned)
	return doc
}

func strs(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// TestGoldensValidate: every golden document is valid, with its
// probe_provenance and without it (the Python probe's document of the same
// scenario, byte for byte, and --no-provenance).
func TestGoldensValidate(t *testing.T) {
	for name, text := range goldens(t) {
		ps, err := ValidateJSON(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ps) > 0 {
			t.Errorf("%s: %q", name, strs(ps))
		}
		doc := del(t, load(t, name), "probe_provenance")
		if ps := Validate(doc); len(ps) > 0 {
			t.Errorf("%s without probe_provenance: %q", name, strs(ps))
		}
	}
}

// TestNotCapturedValidates: the disaster shape of every block is valid.
func TestNotCapturedValidates(t *testing.T) {
	doc, err := pyjson.Decode(string(pyjson.Encode(schema.NotCaptured())))
	if err != nil {
		t.Fatal(err)
	}
	if ps := Validate(doc); len(ps) > 0 {
		t.Errorf("%q", strs(ps))
	}
}

func TestMutations(t *testing.T) {
	obj := func(kv ...any) pyjson.Map[any] {
		m := pyjson.Map[any]{}
		for i := 0; i < len(kv); i += 2 {
			m.Set(kv[i].(string), kv[i+1])
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		golden string
		mutate func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any]
		want   []string
	}{
		{"wrong type", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "rocm.version", pyjson.Number("3"))
			return d
		}, []string{"$.rocm.version: expected string or null, got 3"}},
		{"null not nullable", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "rocm.root", nil)
			return d
		}, []string{"$.rocm.root: expected string, got null"}},
		{"float for integer", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "gpu_arch.agent_count", pyjson.Number("8.0"))
			return d
		}, []string{"$.gpu_arch.agent_count: expected integer or null, got 8.0"}},
		{"missing key", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			return del(t, d, "hip.platform")
		}, []string{"$.hip.platform: missing"}},
		{"missing top-level key", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			return del(t, d, "therock")
		}, []string{"$.therock: missing"}},
		{"extra top-level key", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			d.Set("hostname", "node-1")
			return d
		}, []string{"$.hostname: unexpected key"}},
		{"extra nested key", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			host := mustGet(t, d, "host").(pyjson.Map[any])
			host.Set("uptime", pyjson.Number("5"))
			set(t, d, "host", host)
			return d
		}, []string{"$.host.uptime: unexpected key"}},
		{"identity grade and id", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "probe_provenance.identity.grade", "maybe")
			set(t, d, "probe_provenance.identity.answered_by", "guess")
			return d
		}, []string{`$.probe_provenance.identity.grade: expected one of "proof", "advisory", "none", got "maybe"`,
			`$.probe_provenance.identity.answered_by: expected one of "kernel", "capture", got "guess"`}},
		{"bad enum", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "runtime_context.type", "lxc")
			return d
		}, []string{`$.runtime_context.type: expected one of "docker", "podman", "singularity", "baremetal", got "lxc"`}},
		{"bad nullable enum", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "rocm.version_source", "guess")
			return d
		}, []string{`$.rocm.version_source: expected one of "version_file", "therock_manifest", "pip:rocm", "pip:rocm-sdk-core", "torch", null, got "guess"`}},
		{"nullable object", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "docker", pyjson.Number("3"))
			return d
		}, []string{"$.docker: expected object or null, got 3"}},
		{"inside nullable object", "docker-container.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "docker.image", false)
			return d
		}, []string{"$.docker.image: expected string or null, got false"}},
		{"array item", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "partial_reasons", []any{"a", nil})
			return d
		}, []string{"$.partial_reasons[1]: expected string, got null"}},
		{"map value with odd key", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "env_vars", obj("HIP_VISIBLE_DEVICES", "0", "A B", true))
			return d
		}, []string{`$.env_vars["A B"]: expected string or null, got true`}},
		{"nic present without details", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "nics.cx7", obj("present", true))
			return d
		}, []string{"$.nics.cx7.present: expected one of false, null, got true"}},
		{"nic detail wrong type", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "nics.ainic.firmware", pyjson.Number("1"))
			return d
		}, []string{"$.nics.ainic.firmware: expected string or null, got 1"}},
		{"build_system none with buck2 keys", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "build_system", obj("kind", "none", "repo_root", "/r"))
			return d
		}, []string{"$.build_system.repo_root: unexpected key"}},
		{"wrong order", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			d[7], d[8] = d[8], d[7] // rocm before docker
			return d
		}, []string{`$: keys out of order: expected "docker", got "rocm"`}},
		{"older 1.16 order: therock last", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			return moveKey(t, d, "therock", "partial_reasons")
		}, nil},
		{"therock in neither place", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			return moveKey(t, d, "therock", "hip")
		}, []string{`$: keys out of order: expected "therock", got "amdgpu_driver"`}},
		{"older order with another key out of place", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			d = moveKey(t, d, "therock", "partial_reasons")
			d[7], d[8] = d[8], d[7] // rocm before docker
			return d
		}, []string{`$: keys out of order: expected "docker", got "rocm"`}},
		{"not an object", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			return nil
		}, []string{"$: expected object, got null"}},
		{"schema_version unknown", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "schema_version", "2.0")
			return d
		}, []string{`$.schema_version: expected one of "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12", "1.13", "1.14", "1.15", "1.16", got "2.0"`}},
		{"provenance", "mi350-host.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "probe_provenance.detail", "verbose")
			set(t, d, "probe_provenance.build.goos", nil)
			return d
		}, []string{
			`$.probe_provenance.build.goos: expected string, got null`,
			`$.probe_provenance.detail: expected one of "compact", "full", got "verbose"`,
		}},
		{"gpus", "gpus-mi308x-cpx.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			set(t, d, "probe_provenance.gpus.physical_count", "8")
			dev := mustGet(t, d, "probe_provenance.gpus.devices").([]any)[0].(pyjson.Map[any])
			dev.Set("hive_id", pyjson.Number("2095653680343411291"))
			dev.Set("available_compute_partitions", "SPX, DPX, CPX")
			return d
		}, []string{
			`$.probe_provenance.gpus.physical_count: expected integer or null, got "8"`,
			`$.probe_provenance.gpus.devices[0].hive_id: expected string or null, got 2095653680343411291`,
			`$.probe_provenance.gpus.devices[0].available_compute_partitions: expected array or null, got "SPX, DPX, CPX"`,
		}},
		{"gpus absent (an older aorta-probe)", "gpus-mi308x-cpx.json", func(t *testing.T, d pyjson.Map[any]) pyjson.Map[any] {
			return del(t, d, "probe_provenance.gpus")
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.mutate(t, load(t, tc.golden))
			var got []string
			var n int
			if doc == nil {
				got, n = strs(Validate(nil)), Count(nil)
			} else {
				got, n = strs(Validate(doc)), Count(doc)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if n != len(got) {
				t.Errorf("Count %d, Validate %d problems", n, len(got))
			}
		})
	}
}

func mustGet(t *testing.T, d pyjson.Map[any], path string) any {
	m, k := walk(t, d, path)
	v, ok := m.Get(k)
	if !ok {
		t.Fatalf("no %s", path)
	}
	return v
}

// TestOrderOnlyTopLevel: a nested object in another order is valid (key
// order is part of the contract for the top level only), and an older
// document's top-level order is not checked.
func TestOrderOnlyTopLevel(t *testing.T) {
	d := load(t, "mi350-host.json")
	rocm := mustGet(t, d, "rocm").(pyjson.Map[any])
	rocm[0], rocm[1] = rocm[1], rocm[0]
	if ps := Validate(d); len(ps) > 0 {
		t.Errorf("nested order: %q", strs(ps))
	}
	d = load(t, "mi350-host.json")
	d[7], d[8] = d[8], d[7]
	set(t, d, "schema_version", "1.15")
	if ps := Validate(d); len(ps) > 0 {
		t.Errorf("1.15 order: %q", strs(ps))
	}
}

// TestOlderVersion: a schema 1.7 document lacks the keys added after 1.7 and
// is valid; a key 1.7 already had is still required; keys it has are checked
// with their 1.16 type.
func TestOlderVersion(t *testing.T) {
	v17 := func(t *testing.T) pyjson.Map[any] {
		d := del(t, load(t, "mi350-host.json"), "probe_provenance")
		set(t, d, "schema_version", "1.7")
		for _, k := range []string{
			"container_detected", "execution_context", "probe_namespace", "amdgpu_driver",
			"tensile_catalog", "miopen_catalog", "rocfft_catalog", "buck_invocation", "torchrec", "therock",
			"rocm.root", "rocm.lib_root", "rocm.root_source", "rocm.layout", "rocm.version_source",
			"hipblaslt.upstream_commit", "hipblaslt.upstream_commit_matches_tweak",
			"rocblas.upstream_commit", "rocblas.upstream_commit_matches_tweak",
			"triton.commit", "fbgemm.commit",
		} {
			d = del(t, d, k)
		}
		return d
	}
	if ps := Validate(v17(t)); len(ps) > 0 {
		t.Errorf("1.7 document: %q", strs(ps))
	}
	d := del(t, v17(t), "nics")
	d = del(t, d, "rccl.net_plugin_mode")
	want := []string{"$.nics: missing", "$.rccl.net_plugin_mode: missing"}
	if got := strs(Validate(d)); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	d = v17(t)
	set(t, d, "rccl.version_code", "2.21")
	want = []string{`$.rccl.version_code: expected integer or null, got "2.21"`}
	if got := strs(Validate(d)); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// The same document claiming 1.16 misses every later key.
	d = v17(t)
	set(t, d, "schema_version", "1.16")
	if got := Validate(d); len(got) != 21 || got[0].String() != "$.container_detected: missing" {
		t.Errorf("as 1.16: %q", strs(got))
	}
}

func TestNotJSON(t *testing.T) {
	for _, text := range []string{"", "{", "not json", `{"a": 1,}`} {
		if _, err := ValidateJSON(text); err == nil {
			t.Errorf("%q: no error", text)
		}
	}
	_, err := ValidateJSON("garbage")
	if err == nil || err.Error() != "Expecting value: line 1 column 1 (char 0)" {
		t.Errorf("err = %v", err)
	}
}

func TestParseMinor(t *testing.T) {
	for in, want := range map[any]int{"1.0": 0, "1.7": 7, "1.16": 16, "1.17": -1, "1.07": -1, "2.1": -1, "1.": -1, "1.+3": -1, 1.7: -1, nil: -1} {
		n, ok := parseMinor(in)
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("parseMinor(%v) = %d, want %d", in, n, want)
		}
	}
}

// FuzzValidateJSON: any input either fails to decode or yields problems,
// never a panic; every problem line has a path starting with $.
func FuzzValidateJSON(f *testing.F) {
	for _, text := range goldensF(f) {
		f.Add(text)
	}
	f.Add(`{"schema_version": "1.3", "nics": {"cx7": {"present": true, "links": [{}]}}}`)
	f.Add(`[1, "a", null, {"docker": {}}]`)
	f.Fuzz(func(t *testing.T, text string) {
		ps, err := ValidateJSON(text)
		if err != nil {
			return
		}
		if doc, err := pyjson.Decode(text); err == nil && Count(doc) != len(ps) {
			t.Fatalf("Count %d, Validate %d problems", Count(doc), len(ps))
		}
		for _, p := range ps {
			if !strings.HasPrefix(p.Path, "$") || p.Msg == "" {
				t.Fatalf("bad problem %q", p)
			}
		}
	})
}

func goldensF(f *testing.F) []string {
	files, _ := filepath.Glob("../../testdata/golden/*.json")
	var out []string
	for _, name := range files[:min(3, len(files))] {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestCheckDocument: the one test of "an env document at all" that
// validate and diff share; what it refuses, Validate reports as problems.
// A document needs every top-level key of its schema version.
func TestCheckDocument(t *testing.T) {
	// full is a document with every top-level key of 1.16 (null), and
	// schema_version given as JSON; without lists keys to leave out.
	full := func(version string, without ...string) string {
		root := schemas()[EnvID]
		req, _ := root.Get("required")
		var b strings.Builder
		b.WriteString(`{"schema_version": ` + version)
		for _, k := range req.([]any) {
			if k == "schema_version" || slices.Contains(without, k.(string)) {
				continue
			}
			b.WriteString(`, "` + k.(string) + `": null`)
		}
		return b.String() + "}"
	}
	for _, tc := range []struct{ text, version, err string }{
		{full(`"1.16"`), "1.16", ""},
		{full(`"1.0"`), "1.0", ""},
		{full(`"1.17"`), "1.17", ""}, // a later minor: a document, with a problem
		// A 1.7 document lacks the keys added after 1.7, not the others.
		{full(`"1.7"`, "container_detected", "therock", "amdgpu_driver"), "1.7", ""},
		{full(`"1.7"`, "nics"), "", "$.nics: missing"},
		{full(`"1.16"`, "therock"), "", "$.therock: missing"},
		{`{"schema_version": "1.16"}`, "", "$.captured_at: missing, and 38 more top-level keys of schema 1.16"},
		{`{"schema_version": "1.0", "rocm": 3}`, "", "$.captured_at: missing, and 10 more top-level keys of schema 1.0"},
		{`[1]`, "", "the top level is an array, not an object"},
		{`null`, "", "the top level is null, not an object"},
		{`"1.16"`, "", "the top level is a string, not an object"},
		{`{"host": {}}`, "", "no schema_version"},
		{`{"schema_version": "2.0"}`, "", `schema_version "2.0" is not 1.x`},
		{`{"schema_version": 1.16}`, "", "schema_version is a number (1.16), not a string"},
		{`{"schema_version": null}`, "", "schema_version is null (null), not a string"},
		{`{"schema_version": ["1.16"]}`, "", "schema_version is an array, not a string"},
	} {
		v, err := pyjson.Decode(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		got, err := CheckDocument(v)
		if got != tc.version || fmt.Sprint(err) != tc.err && !(err == nil && tc.err == "") {
			t.Errorf("CheckDocument(%.80s) = %q, %v; want %q, %q", tc.text, got, err, tc.version, tc.err)
		}
		if err != nil && len(Validate(v)) == 0 {
			t.Errorf("Validate(%.80s): no problem for a non-document", tc.text)
		}
	}
}

// moveKey moves the top-level key k of d to right after the key after.
func moveKey(t *testing.T, d pyjson.Map[any], k, after string) pyjson.Map[any] {
	t.Helper()
	var moved *pyjson.Entry[any]
	var out pyjson.Map[any]
	for i := range d {
		if d[i].Key == k {
			moved = &d[i]
			continue
		}
		out = append(out, d[i])
	}
	if moved == nil {
		t.Fatalf("no key %q", k)
	}
	for i := range out {
		if out[i].Key == after {
			return append(out[:i+1], append(pyjson.Map[any]{*moved}, out[i+1:]...)...)
		}
	}
	t.Fatalf("no key %q", after)
	return nil
}
