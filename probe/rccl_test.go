package probe

import (
	"strings"
	"testing"
)

func TestNetPluginNames(t *testing.T) {
	for in, want := range map[string]string{
		"rccl-net":       "rccl-net librccl-net.so rccl-net.so librccl-net",
		"librccl-net.so": "librccl-net.so librccl-net.so.so rccl-net.so.so rccl-net.so",
		"librccl-anp":    "librccl-anp librccl-anp.so rccl-anp.so rccl-anp",
	} {
		if got := strings.Join(netPluginNames(in), " "); got != want {
			t.Errorf("netPluginNames(%q) = %q, want %q", in, got, want)
		}
	}
}
