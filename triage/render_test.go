package triage

import (
	"strings"
	"testing"
)

// TestValueLines: long values are never cut: hashes break at the column,
// lists wrap at words, and every line fits.
func TestValueLines(t *testing.T) {
	hash := "filenames-sha256:" + strings.Repeat("0123456789abcdef", 4)
	list := strings.Repeat("mnt_ns_differs_from_parent, ", 6)
	for _, v := range []string{"short", hash, list, strings.Repeat("é", 200)} {
		var l lines
		valueLines(&l, "        A: ", v)
		out := l.b.String()
		checkWidth(t, out)
		joined := strings.Join(strings.Fields(strings.ReplaceAll(out, "        A: ", "")), "")
		if joined != strings.Join(strings.Fields(v), "") {
			t.Errorf("value %q laid out as\n%s", v, out)
		}
	}
}
