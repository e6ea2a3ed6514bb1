package schema

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestNotCapturedPytorchBuild: install kind unknown, every submodule,
// flag and build flag named with a null value.
func TestNotCapturedPytorchBuild(t *testing.T) {
	got := string(pyjson.EncodeCompact(NotCapturedPytorchBuild()))
	for _, frag := range []string{
		`"install_kind": "unknown"`,
		`"submodule_commits": {"composable_kernel": null, "aiter": null, "fbgemm": null, "_source": null}`,
		`"flags": {"build_settings": null, "cxx_defines": null, "cxx_flags_raw": null, "cuda_flags_raw": null, "gpu_arch_list": null}`,
		`"USE_FLASH_ATTENTION": null`,
	} {
		if !strings.Contains(got, frag) {
			t.Errorf("pytorch_build lacks %s: %s", frag, got)
		}
	}
}
