package schema

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestNotCapturedLibraries: the library blocks' not-captured shapes
// (docs/rocm-libraries.md): every fact null, applied_prs an empty
// object, each catalog partial with its own reason and no file list.
func TestNotCapturedLibraries(t *testing.T) {
	if got := string(pyjson.EncodeCompact(NotCapturedGemmLibrary())); got != `{"rocm_release_tweak": null, "package_version": null, "lib_hash": null, "kernel_db_revision": null, "upstream_commit": null, "upstream_commit_matches_tweak": null, "applied_prs": {}}` {
		t.Errorf("gemm library %s", got)
	}
	if got := string(pyjson.EncodeCompact(NotCapturedMenu("why"))); got != `{"status": "partial", "reason": "why", "dir": null, "logic_file_count": null, "file_count": null, "gfx_arch_coverage": null, "files": null, "combined_content_hash": null}` {
		t.Errorf("menu %s", got)
	}
	for name, v := range map[string]any{
		"tensile_catalog": NotCapturedTensileCatalog(),
		"miopen_catalog":  NotCapturedMIOpenCatalog(),
		"rocfft_catalog":  NotCapturedRocFFTCatalog(),
	} {
		got := string(pyjson.EncodeCompact(v))
		if !strings.Contains(got, `"status": "partial"`) || !strings.Contains(got, `"reason": "`+name+` not captured"`) {
			t.Errorf("%s %s", name, got)
		}
	}
}
