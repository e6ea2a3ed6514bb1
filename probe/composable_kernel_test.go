package probe

import (
	"strings"
	"testing"

	"aorta-probe/internal/golden"
)

func TestParseCKVersion(t *testing.T) {
	for _, tc := range []struct{ in, version, commit string }{
		{"#define CK_VERSION_MAJOR 1\n#define CK_VERSION_MINOR 2\n#define CK_VERSION_PATCH 0\n#define CK_COMMIT_ID 23d531c8ae9721ac990116751542ab63e11d27c8\n", "1.2.0", "23d531c8ae9721ac990116751542ab63e11d27c8"},
		{"#define CK_VERSION 1.2.0\n#define CK_COMMIT_ID abc1234xyz", "null", "abc1234"},
		{"#define CK_VERSION_MAJOR 1\n#define CK_VERSION_MINOR 2\n#define CK_VERSION_PATCH 3\n#define CK_VERSION_MAJOR 07\n", "07.2.3", "null"},
		{"#define\vCK_COMMIT_ID\v" + strings.Repeat("a", 45), "null", strings.Repeat("a", 40)},
		{"#define CK_COMMIT_ID abc12", "null", "null"},
	} {
		v, c := parseCKVersion(tc.in)
		if golden.OrNull(v) != tc.version || golden.OrNull(c) != tc.commit {
			t.Errorf("parseCKVersion(%q) = %s, %s", tc.in, golden.OrNull(v), golden.OrNull(c))
		}
	}
}

func FuzzParseCKVersion(f *testing.F) {
	f.Add("#define CK_VERSION_MAJOR 1\n#define CK_VERSION_MINOR 2\n#define CK_VERSION_PATCH 0\n#define CK_COMMIT_ID abc1234\n")
	f.Fuzz(func(t *testing.T, s string) {
		v, c := parseCKVersion(s)
		if v != nil && strings.Count(*v, ".") != 2 {
			t.Fatalf("version %q", *v)
		}
		if c != nil && (len(*c) < 7 || len(*c) > 40) {
			t.Fatalf("commit %q", *c)
		}
	})
}
