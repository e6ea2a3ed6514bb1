package probe

import "testing"

func TestNamespaceKey(t *testing.T) {
	// The probe_namespace vectors
	// (docs/fields-process.md#probe_namespace-process).
	boot := "boot-aaaa-bbbb"
	real := "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
	for _, tc := range []struct {
		kind  string
		boot  *string
		token string
		want  string
	}{
		{"mnt", &boot, "mnt:[4026531840]", "mnt:8021806755e296c7"},
		{"mnt", nil, "mnt:[4026531840]", "mnt-local:305b131f331401a5"},
		{"cgroup-ns", &boot, "cgroup:[4026533001]", "cgroup-ns:df6f66f8b34bb519"},
		{"cgroup-ns", nil, "cgroup:[4026533001]", "cgroup-ns-local:dda69e0540ffde06"},
		{"mnt", &real, "mnt:[4026532569]", "mnt:50d635339c5cddd4"},
	} {
		if got := namespaceKey(tc.kind, tc.boot, tc.token); got != tc.want {
			t.Errorf("namespaceKey(%s, %v, %s) = %s, want %s", tc.kind, tc.boot != nil, tc.token, got, tc.want)
		}
	}
}
