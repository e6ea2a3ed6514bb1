package triage

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCompare: any text either fails to parse with one line, or compares
// against a real document (both ways) and renders in every format without
// a panic, the text within 80 columns.
func FuzzCompare(f *testing.F) {
	real, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "docker-container.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(real))
	f.Add(`{"schema_version": "1.7", "probe_namespace": "mnt:1", "container_detected": "yes"}`)
	f.Add(`{"schema_version": "1.16", "host": null, "env_vars": {"NCCL_DEBUG": 1}, "probe_provenance": {"isolation": []}}`)
	f.Add(`{"schema_version": "1.0", "rocm": [1, {"a": NaN}], "docker": {"container_id": {"x": -Infinity}}}`)
	f.Add("\x00")
	// The same odd values in documents that have their schema's top-level
	// keys (jsonschema.CheckDocument), so that they reach Compare.
	f.Add(`{"schema_version": "1.0", "captured_at": 1, "runtime_context": [], "docker": {"container_id": {"x": -Infinity}}, ` +
		`"rocm": [1, {"a": NaN}], "hip": null, "hipblaslt": null, "python_version": null, "pytorch_version": null, ` +
		`"env_vars": {"NCCL_DEBUG": 1}, "system_health": null, "partial": "yes", "partial_reasons": null, ` +
		`"probe_provenance": {"isolation": [], "identity": {"boot": 3}}}`)
	ref, err := Parse("ref", string(real))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := Parse("x.json", text)
		if err != nil {
			if bytes.ContainsAny([]byte(err.Error()), "\n\r") && !bytes.Contains([]byte(text), []byte("\n")) {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for _, r := range []*Result{Compare(d, ref), Compare(ref, d), Compare(d, d)} {
			checkRenders(t, r)
		}
		flatten(d)
	})
}
