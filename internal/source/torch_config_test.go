package source

import (
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/testdoc"
)

func strV(s string) string { return s }

func TestParseBuildSettingsFixture(t *testing.T) {
	got := testdoc.MapText(ParseBuildSettings(testdoc.TorchConfigShow(t)), strV)
	want := "BLAS_INFO=mkl;BUILD_TYPE=Release;COMMIT_SHA=ff65f5bc672795c5e5033900ea0a0c4f8566c8cf;CXX_COMPILER=/opt/rocm/llvm/bin/clang++;" +
		"CXX_FLAGS=" + testdoc.TorchConfigCXXFlags + ";LAPACK_INFO=mkl;TORCH_VERSION=2.9.1;USE_CUDA=OFF;USE_CUDNN=OFF;USE_MKL=ON;USE_MKLDNN=ON;" +
		"USE_NCCL=ON;USE_OPENMP=ON;USE_ROCM=ON;USE_ROCM_KERNEL_ASSERT=OFF;"
	if got != want {
		t.Errorf("build settings\n got %s\nwant %s", got, want)
	}
}

func TestParseBuildSettings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "<nil>"},
		{"no settings here", "<nil>"},
		{"Build settings:", "<nil>"},
		{"Build settings:   \n ", "<nil>"},
		{"Build settings: lower=case, x", "<nil>"},
		// the Python probe's example: trailing ", " + newline
		{"Build settings: BLAS_INFO=open, BUILD_TYPE=Release, CXX_FLAGS= -D_GLIBCXX_USE_CXX11_ABI=1 -DUSE_FBGEMM -O2, TORCH_VERSION=2.5.1, USE_ROCM=ON, USE_ROCM_KERNEL_ASSERT=OFF, \n",
			"BLAS_INFO=open;BUILD_TYPE=Release;CXX_FLAGS=-D_GLIBCXX_USE_CXX11_ABI=1 -DUSE_FBGEMM -O2;TORCH_VERSION=2.5.1;USE_ROCM=ON;USE_ROCM_KERNEL_ASSERT=OFF;"},
		// a comma without whitespace does not end a value
		{"Build settings: A=1,B=2, C=3", "A=1,B=2;C=3;"},
		// the whitespace after the comma may hold newlines
		{"Build settings: A=1,\n   B=2", "A=1;B=2;"},
		// repeated key: last value, first position
		{"Build settings: A=1, B=2, A=3", "A=3;B=2;"},
		// empty values and values of only commas
		{"Build settings: A=, B=,,, C=x", "A=;B=;C=x;"},
		// the key starts at the leftmost upper-case position before '='
		{"Build settings: junk xKEY=v", "KEY=v;"},
		{"Build settings: 9A=1", "A=1;"},
		// the first "Build settings:" wins
		{"Build settings: A=1\nBuild settings: B=2", "A=1\nBuild settings: B=2;"},
		{"Build settings: A=ü, B=2", "A=ü;B=2;"},
	} {
		if got := testdoc.MapText(ParseBuildSettings(tc.in), strV); got != tc.want {
			t.Errorf("ParseBuildSettings(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestParseCXXDefinesFixture(t *testing.T) {
	got := testdoc.MapText(ParseCXXDefines(testdoc.TorchConfigCXXFlags), golden.OrNull[string])
	want := "FLASH_NAMESPACE=pytorch_flash;LIBKINETO_NOXPUPTI=ON;NDEBUG=null;USE_FBGEMM=null;USE_KINETO=null;USE_PTHREADPOOL=null;USE_ROCM_CK_SDPA=null;_GLIBCXX_USE_CXX11_ABI=1;"
	if got != want {
		t.Errorf("cxx_defines\n got %s\nwant %s", got, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"-D", ""},
		{"-D9X", ""},
		{"x-DA=1,2 -DB= -DA=3", "A=3;B=null;"},
		{"-DA=\vx", "A=null;"},
	} {
		if got := testdoc.MapText(ParseCXXDefines(tc.in), golden.OrNull[string]); got != tc.want {
			t.Errorf("ParseCXXDefines(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzParseBuildSettings(f *testing.F) {
	f.Add(testdoc.TorchConfigShow(f))
	f.Add("Build settings: A=1,\n B=2, ")
	f.Fuzz(func(t *testing.T, s string) {
		m := ParseBuildSettings(s)
		for _, e := range m {
			if e.Key == "" || strings.ContainsAny(e.Key, "= ,") {
				t.Fatalf("bad key %q", e.Key)
			}
		}
		_ = ParseCXXDefines(s)
	})
}
