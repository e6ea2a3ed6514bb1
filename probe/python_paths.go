package probe

import (
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
	if e := strings.TrimRight(home, "/") + p[1:]; e != "" {
		return e
	}
	return "/" // Python: (userhome + path[i:]) or root

}
