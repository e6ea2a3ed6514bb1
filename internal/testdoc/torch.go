package testdoc

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TorchConfigShow is testdata/torch/config-show.txt: what the Python
// probe's fixture torch prints for torch.__config__.show(). internal/source
// parses it (ParseBuildSettings), probe projects it (pytorch_build). Read
// when a test asks, never at package initialisation: probe's test binary
// is also re-executed as the detached GPU reader, in /.
func TorchConfigShow(t testing.TB) string {
	t.Helper()
	return string(moduleFile(t, "testdata", "torch", "config-show.txt"))
}

// TorchConfigCXXFlags is the CXX_FLAGS build setting of TorchConfigShow,
// stripped.
const TorchConfigCXXFlags = "-D_GLIBCXX_USE_CXX11_ABI=1 -fvisibility-inlines-hidden -DUSE_PTHREADPOOL -DNDEBUG -DUSE_KINETO -DLIBKINETO_NOXPUPTI=ON -DUSE_FBGEMM -DUSE_ROCM_CK_SDPA -DFLASH_NAMESPACE=pytorch_flash -O2 -fPIC -Wall"

// MapText is m as one line a test compares: "key=f(value);" per entry in
// order, "<nil>" for a nil map.
func MapText[V any](m pyjson.Map[V], f func(V) string) string {
	if m == nil {
		return "<nil>"
	}
	var b strings.Builder
	for _, e := range m {
		b.WriteString(e.Key + "=" + f(e.Value) + ";")
	}
	return b.String()
}
