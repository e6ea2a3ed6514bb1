package capture

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodeFileName: safe names stay, everything else is escaped one to
// one, nothing can climb out of DIR or hide, long names are cut with a
// digest.
func TestNodeFileName(t *testing.T) {
	long := strings.Repeat("n", 300)
	for _, tc := range []struct{ in, want string }{
		{"node1", "node1"},
		{"gpu-a.rack_3", "gpu-a.rack_3"},
		{"", "unknown-node"},
		{".", "%2E"},
		{"..", "%2E."},
		{".hidden", "%2Ehidden"},
		{"../etc/passwd", "%2E.%2Fetc%2Fpasswd"},
		{"a/b", "a%2Fb"},
		{"a%2Fb", "a%252Fb"},
		{"x y:z", "x%20y%3Az"},
		{"nœud", "n%C5%93ud"},
		{"a\x00b\n", "a%00b%0A"},
		{long, ""}, // checked below: cut, with a digest
	} {
		got := NodeFileName(tc.in)
		if tc.in == long {
			if len(got) != maxNodeName || !strings.HasPrefix(got, strings.Repeat("n", 233)+"~") {
				t.Errorf("long name: %q (%d bytes)", got, len(got))
			}
			if got == NodeFileName(long+"n") {
				t.Errorf("two long names share %q", got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("NodeFileName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzNodeFileName: every name gives one file name inside DIR, neither
// hidden nor too long, and two different names (of a usual length) never
// give the same.
func FuzzNodeFileName(f *testing.F) {
	for _, s := range []string{"node1", "", "..", "a/b", "a%2Fb", "\xff"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		fa := NodeFileName(a)
		if fa == "" || len(fa) > maxNodeName || strings.ContainsAny(fa, "/\x00") || fa[0] == '.' ||
			filepath.Base(fa) != fa {
			t.Fatalf("NodeFileName(%q) = %q", a, fa)
		}
		if a != b && len(a) < 80 && len(b) < 80 && fa == NodeFileName(b) {
			t.Fatalf("%q and %q share %q", a, b, fa)
		}
	})
}

// TestOutDirPath: $SLURMD_NODENAME, else $NODE_NAME, else the host name;
// an empty variable counts as unset.
func TestOutDirPath(t *testing.T) {
	host := func() (string, error) { return "host-1", nil }
	noHost := func() (string, error) { return "", errors.New("no host name") }
	for _, tc := range []struct {
		env  map[string]string
		host func() (string, error)
		want string
	}{
		{map[string]string{"SLURMD_NODENAME": "node3", "NODE_NAME": "k8s-a"}, host, "D/node3.json"},
		{map[string]string{"SLURMD_NODENAME": "", "NODE_NAME": "k8s-a"}, host, "D/k8s-a.json"},
		{map[string]string{"NODE_NAME": ""}, host, "D/host-1.json"},
		{nil, noHost, "D/unknown-node.json"},
		{map[string]string{"SLURMD_NODENAME": "../x"}, host, "D/%2E.%2Fx.json"},
	} {
		lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		if got := outDirPath("D", lookup, tc.host); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}
