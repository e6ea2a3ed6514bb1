package output

import (
	"strings"
	"testing"

	"aorta-probe/schema"
)

// TestField: the value of a path as JSON on one line, and every way a path
// names nothing, in one line that repeats the path at most 80 bytes long.
func TestField(t *testing.T) {
	s := schema.NotCaptured()
	s.PartialReasons = []string{"a: x", "b: y"}
	long := strings.Repeat("k", 100_000)
	clipped := strings.Repeat("k", 80) + "…"
	for _, tc := range []struct{ path, out, err string }{
		{"schema_version", `"1.16"`, ""},
		{"partial_reasons[0]", `"a: x"`, ""},
		{"partial_reasons[-1]", `"b: y"`, ""},
		{"partial_reasons[2]", "", "--field partial_reasons[2]: index 2 out of range: partial_reasons has 2 item(s)"},
		{"partial_reasons[-3]", "", "--field partial_reasons[-3]: index -3 out of range: partial_reasons has 2 item(s)"},
		// An index too large for any list is out of range, not a key.
		{"partial_reasons[99999999999999999999]", "", "--field partial_reasons[99999999999999999999]: index 99999999999999999999 out of range: partial_reasons has 2 item(s)"},
		{"partial_reasons[abc]", "", "--field partial_reasons[abc]: [abc] is not a list index (an integer: [0] the first item, [-1] the last)"},
		{"rocm[x]", "", "--field rocm[x]: [x] is not a list index (an integer: [0] the first item, [-1] the last)"},
		{"partial_reasons.x", "", "--field partial_reasons.x: partial_reasons is an array, not an object"},
		{"rocm[0]", "", "--field rocm[0]: rocm is an object, not an array"},
		{"docker.image", "", "--field docker.image: docker is null"},
		{"", "", "--field needs a non-empty path"},
		{long, "", "--field " + clipped + ": no key '" + clipped + "' in the document (keys: "},
		{"rocm." + long + "[z]", "", "--field rocm." + strings.Repeat("k", 75) + "…: [z] is not a list index"},
	} {
		out, err := Field(s, tc.path)
		switch {
		case tc.err == "" && (err != nil || string(out) != tc.out):
			t.Errorf("%.40q: %s, %v; want %s", tc.path, out, err, tc.out)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%.40q: error %.300v; want %.300q…", tc.path, err, tc.err)
		case err != nil && len(err.Error()) > 500:
			t.Errorf("%.40q: a %d-byte error", tc.path, len(err.Error()))
		}
	}
}

// FuzzField: any path gives a value or one error line that starts
// "--field " and is bounded, never a panic; CheckField refuses no path
// that Field resolves.
func FuzzField(f *testing.F) {
	for _, p := range []string{"rocm.version", "partial_reasons[0]", "a[1][-2]", "[0]", "a..b", "a[b", "x]", "[]", "a[-]", "gpu_arch.gfx_targets[-1]"} {
		f.Add(p)
	}
	s := schema.NotCaptured()
	f.Fuzz(func(t *testing.T, path string) {
		out, err := Field(s, path)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "--field ") || strings.Contains(msg, "\n") && !strings.Contains(path, "\n") || len(msg) > 1000 {
				t.Fatalf("%q: error %q", path, msg)
			}
			return
		}
		if len(out) == 0 {
			t.Fatalf("%q: no value", path)
		}
		if err := CheckField(path); err != nil {
			t.Fatalf("%q resolves but CheckField says %v", path, err)
		}
	})
}
