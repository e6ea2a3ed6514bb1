package schema

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestNotCapturedDocument: the not-captured document has the newest 1.16
// key order (therock at index 9, right after rocm) and the block shapes.
func TestNotCapturedDocument(t *testing.T) {
	doc := string(pyjson.Encode(NotCaptured()))
	keys := topLevelKeys(t, doc)
	want := []string{"schema_version", "captured_at", "host", "runtime_context", "container_detected",
		"execution_context", "probe_namespace", "docker", "rocm", "therock", "amdgpu_driver", "hip", "gpu_arch", "nics",
		"hipblaslt", "rocblas", "composable_kernel", "tensile", "tensile_catalog", "miopen", "miopen_catalog",
		"rocfft_catalog", "rccl", "triton", "fbgemm", "torchrec", "aiter", "aotriton", "build_system",
		"buck_invocation", "library_introspection", "library_introspection_alternates", "python_version",
		"pytorch_version", "pytorch_build", "pytorch_sdpa", "env_vars", "system_health", "partial",
		"partial_reasons"}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("top-level keys\n got %v\nwant %v", keys, want)
	}
	for _, frag := range []string{
		`"nics": {
    "ainic": {
      "present": null
    },`,
		`"build_system": {
    "kind": "none"
  },`,
		`"applied_prs": {}`,
		`"reason": "tensile_catalog not captured"`,
		`"reason": "miopen_catalog not captured"`,
		`"reason": "rocfft_catalog not captured"`,
		`"net_plugin_mode": "unknown"`,
		`"install_kind": "unknown"`,
		`"comparison": "not_compared"`,
	} {
		if !strings.Contains(doc, frag) {
			t.Errorf("not-captured document lacks %s", frag)
		}
	}
	if strings.HasSuffix(doc, "\n") {
		t.Error("document ends with a newline; files must not")
	}
}

func topLevelKeys(t *testing.T, doc string) []string {
	t.Helper()
	v, err := pyjson.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	return v.(pyjson.Map[any]).Keys()
}

func TestEncodeRoundTrip(t *testing.T) {
	doc := pyjson.Encode(NotCaptured())
	v, err := pyjson.Decode(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	if again := pyjson.Encode(v); string(again) != string(doc) {
		t.Error("decode + encode changed the document")
	}
}
