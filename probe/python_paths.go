package probe

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// pyDirname is Python's os.path.dirname: everything before the last slash,
// with trailing slashes removed unless the head is all slashes.
func pyDirname(p string) string {
	i := strings.LastIndex(p, "/") + 1
	head := p[:i]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head
}

// expandUser is os.path.expanduser for the "~" and "~/..." forms, from
// $HOME; "~user" forms are left as they are (no passwd lookup).
func expandUser(s *state, p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, ok := s.env("HOME")
	if !ok {
		return p
	}
	if home == "/" && p != "~" {
		return p[1:]
	}
	return strings.TrimRight(home, "/") + p[1:]
}

// realpath is Python's Path.resolve() (non-strict) on the probed
// filesystem: absolute, every existing symlink resolved (absolute targets
// stay inside the root), the part that does not exist appended as is.
func (r fsroot) realpath(cwd, p string) string {
	if !strings.HasPrefix(p, "/") {
		p = cwd + "/" + p
	}
	var done []string // resolved components
	todo := strings.Split(p, "/")
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		cur := "/" + strings.Join(append(done, c), "/")
		t, err := r.readlink(cur)
		if err != nil || hops > 40 {
			done = append(done, c)
			continue
		}
		hops++
		if strings.HasPrefix(t, "/") {
			done = nil
		}
		todo = append(strings.Split(t, "/"), todo...)
	}
	return filepath.Clean("/" + strings.Join(done, "/"))
}

// fmtAny is the JSON text of a decoded helper value, for the rare
// non-string values written where a string is expected.
func fmtAny(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
