package probe

import (
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/schema"
)

// parseOSRelease parses os-release(5): KEY=value lines, values optionally
// in single or double quotes with shell-style backslash escapes inside
// double quotes. Comments, blank and malformed lines are skipped; a later
// key overrides an earlier one.
func parseOSRelease(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		switch {
		case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
			v = unescapeShell(v[1 : len(v)-1])
		case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}

func unescapeShell(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\`$", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// osRelease reads /etc/os-release, else /usr/lib/os-release: the image the
// probe's filesystem comes from (recorded in probe_provenance).
func osRelease(r *machine.FS) *schema.OSRelease {
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		t := r.ReadText(p)
		if t == nil {
			continue
		}
		kv := parseOSRelease(*t)
		get := func(k string) *string {
			if v, ok := kv[k]; ok {
				return &v
			}
			return nil
		}
		return &schema.OSRelease{Path: p, ID: get("ID"), VersionID: get("VERSION_ID"), PrettyName: get("PRETTY_NAME")}
	}
	return nil
}
