package probe

import (
	"context"
	"testing"

	"aorta-probe/internal/machine"
)

// TestPyDirname: os.path.dirname's answers, trailing slashes of the head
// dropped unless it is all slashes.
func TestPyDirname(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/lib/python3": "/usr/lib", "/usr//lib": "/usr", "/x": "/", "//x": "//",
		"x": "", "a/b/": "a/b", "": "",
	} {
		if got := pyDirname(in); got != want {
			t.Errorf("pyDirname(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExpandUser: os.path.expanduser for ~ and ~/..., with HOME; unset
// HOME or another user's ~name leaves the path as it is.
func TestExpandUser(t *testing.T) {
	for _, tc := range []struct {
		home, in, want string
		set            bool
	}{
		{"/home/u", "~/x", "/home/u/x", true},
		{"/home/u/", "~", "/home/u", true},
		{"/", "~/x", "/x", true},
		{"/", "~", "/", true},
		{"", "~/x", "~/x", false},
		{"/home/u", "~other/x", "~other/x", true},
		{"/home/u", "/abs", "/abs", true},
	} {
		env := func(name string) (string, bool) {
			if name == "HOME" && tc.set {
				return tc.home, true
			}
			return "", false
		}
		s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/", Env: env}})}
		if got := expandUser(s, tc.in); got != tc.want {
			t.Errorf("HOME %q (set %v): expandUser(%q) = %q, want %q", tc.home, tc.set, tc.in, got, tc.want)
		}
	}
}
