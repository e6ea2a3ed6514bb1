package probe

import (
	"testing"

	"aorta-probe/internal/testdoc"
)

func TestHasDefine(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		want       bool
	}{
		{testdoc.TorchConfigCXXFlags, "USE_FBGEMM", true},
		{testdoc.TorchConfigCXXFlags, "USE_FBGEMM_GENAI", false},
		{"-DUSE_FBGEMM_GENAI", "USE_FBGEMM", false},
		{"-DUSE_FBGEMM_GENAI -DUSE_FBGEMM", "USE_FBGEMM", true},
		{"-DUSE_ROCM_CK_GEMM", "USE_ROCM_CK_GEMM", true},
		{"-DUSE_ROCM_CK_GEMM=1", "USE_ROCM_CK_GEMM", true},
		{"", "X", false},
	} {
		if got := hasDefine(tc.text, tc.name); got != tc.want {
			t.Errorf("hasDefine(%q, %q) = %v", tc.text, tc.name, got)
		}
	}
}
