package source

import (
	"slices"
	"strings"
)

// Cmdline is /proc/cmdline split into its space-separated tokens, in
// order (the kernel's own command line: a container sees the host's).
type Cmdline []string

// Cmdline reads /proc/cmdline (at most a page; the kernel's limit,
// COMMAND_LINE_SIZE, is smaller).
func (fs FS) Cmdline() (Cmdline, error) {
	const p = "/proc/cmdline"
	s, err := fs.Attr(p)
	if err != nil {
		return nil, err
	}
	return ParseCmdline(s), nil
}

// ParseCmdline splits a kernel command line at white space. Quoted values
// (param="a b") are kept whole, as the kernel's next_arg() reads them.
func ParseCmdline(s string) Cmdline {
	out := Cmdline{}
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// Has reports whether tok is one of the tokens, as written.
func (c Cmdline) Has(tok string) bool { return slices.Contains(c, tok) }

// Options are the comma-separated values of every key=value token with
// this key, in order: Options("pci") of "pci=realloc=off,bfsort pci=noaer"
// is [realloc=off bfsort noaer]; Options("modprobe.blacklist") lists the
// blacklisted modules.
func (c Cmdline) Options(key string) []string {
	var out []string
	for _, t := range c {
		if v, ok := strings.CutPrefix(t, key+"="); ok {
			for _, o := range strings.Split(strings.Trim(v, `"`), ",") {
				if o != "" {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// Value is the value of the last key=value token with this key (the
// kernel's parsers keep the last), and whether there was one.
func (c Cmdline) Value(key string) (string, bool) {
	for i := len(c) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(c[i], key+"="); ok {
			return strings.Trim(v, `"`), true
		}
	}
	return "", false
}
