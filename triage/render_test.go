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
	json := `{"path":"/etc/os-release","id":"debian","version_id":"12","pretty_name":"Debian GNU/Linux 12 (bookworm)"}`
	for _, v := range []string{"short", hash, list, strings.Repeat("é", 200), json} {
		var l lines
		valueLines(&l, "        A: ", v)
		out := l.b.String()
		checkWidth(t, out)
		joined := strings.Join(strings.Fields(strings.ReplaceAll(out, "        A: ", "")), "")
		if strings.Contains(out, "…") || joined != strings.Join(strings.Fields(v), "") {
			t.Errorf("value %q laid out as\n%s", v, out)
		}
	}
}
