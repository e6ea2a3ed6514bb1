package testdoc

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestTorchConfigShow: the fixture is found from this package's directory
// and holds TorchConfigCXXFlags as its CXX_FLAGS setting (after the
// blank torch prints there).
func TestTorchConfigShow(t *testing.T) {
	if s := TorchConfigShow(t); !strings.Contains(s, "CXX_FLAGS= "+TorchConfigCXXFlags+", ") {
		t.Errorf("config-show.txt lacks CXX_FLAGS=%s:\n%s", TorchConfigCXXFlags, s)
	}
}

func TestMapText(t *testing.T) {
	if got := MapText(pyjson.Map[int](nil), func(int) string { return "" }); got != "<nil>" {
		t.Errorf("nil map: %q", got)
	}
	m := pyjson.Map[bool]{{Key: "b", Value: true}, {Key: "a", Value: false}}
	if got := MapText(m, func(v bool) string { return pyjson.Str(v) }); got != "b=True;a=False;" {
		t.Errorf("MapText = %q", got)
	}
}
