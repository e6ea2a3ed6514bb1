package probe

import (
	"testing"

	"aorta-probe/internal/golden"
)

func TestPickAOTriton(t *testing.T) {
	for _, tc := range []struct {
		names        []string
		chosen, vers string
	}{
		{[]string{"libaotriton_v2.so", "libaotriton_v2.so.0.11.1"}, "libaotriton_v2.so.0.11.1", "0.11.1"},
		{[]string{"libaotriton_v2.so.0.10.0", "libaotriton_v2.so.0.9.0"}, "libaotriton_v2.so.0.10.0", "0.10.0"},
		{[]string{"libaotriton_v2.so", "libaotriton_v2.so.0.11.1.dbg"}, "libaotriton_v2.so", "null"},
		{[]string{"libaotriton_v2.so.1.2"}, "libaotriton_v2.so.1.2", "null"},
	} {
		c, v := pickAOTriton(tc.names)
		if c != tc.chosen || golden.OrNull(v) != tc.vers {
			t.Errorf("pickAOTriton(%q) = %s, %s", tc.names, c, golden.OrNull(v))
		}
	}
}
