package source

import (
	"strings"
)

// OSRelease is the os-release(5) file of the probed root.
type OSRelease struct {
	Path   string            // the file read: /etc/os-release or /usr/lib/os-release
	Fields map[string]string // KEY=value, unquoted (ParseOSRelease)
}

// osReleasePaths are where os-release(5) says to look, in order.
var osReleasePaths = []string{"/etc/os-release", "/usr/lib/os-release"}

// OSRelease reads /etc/os-release, else /usr/lib/os-release: the first
// that read-text reads (missing, unreadable, not UTF-8 or empty goes on
// to the next). Neither is ErrRead.
//
// Source: /etc/os-release, /usr/lib/os-release.
func (fs FS) OSRelease() (OSRelease, error) {
	for _, p := range osReleasePaths {
		if t := fs.m.ReadText(p); t != nil {
			return OSRelease{Path: p, Fields: ParseOSRelease(*t)}, nil
		}
	}
	return OSRelease{}, &Error{Kind: ErrRead, Path: strings.Join(osReleasePaths, ", ")}
}

// ParseOSRelease parses os-release(5): KEY=value lines, values optionally
// in single or double quotes with shell-style backslash escapes inside
// double quotes. Comments, blank and malformed lines are skipped; a later
// key overrides an earlier one.
func ParseOSRelease(text string) map[string]string {
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
