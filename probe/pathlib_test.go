package probe

import (
	"strings"
	"testing"
)

func TestPathlibStr(t *testing.T) {
	for in, want := range map[string]string{
		"/data/miopen//db/": "/data/miopen/db", "a/./b/../c": "a/b/../c", "": ".", ".": ".", "./": ".",
		"//x": "//x", "///x": "/x", "/": "/", "//": "//", "rel/": "rel", "/a/.": "/a",
	} {
		if got := pathlibStr(in); got != want {
			t.Errorf("pathlibStr(%q) = %q, want %q", in, got, want)
		}
	}
	if got := pathlibJoin("/usr/lib/", "librccl-net.so"); got != "/usr/lib/librccl-net.so" {
		t.Errorf("join = %q", got)
	}
	if got := pathlibJoin(".", "x.so"); got != "x.so" {
		t.Errorf("join . = %q", got)
	}
}

func FuzzPathlibStr(f *testing.F) {
	f.Add("/data/miopen//db/")
	f.Add("//x/./..//")
	f.Fuzz(func(t *testing.T, p string) {
		got := pathlibStr(p)
		if got == "" || strings.Contains(got[min(2, len(got)):], "//") || (len(got) > 1 && strings.HasSuffix(got, "/") && got != "//") {
			t.Fatalf("pathlibStr(%q) = %q", p, got)
		}
		if pathlibStr(got) != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", p, got, pathlibStr(got))
		}
	})
}

func FuzzLibCandidates(f *testing.F) {
	f.Add("libfoo.so.1.2.3", "libfoo.so.1.a", "libfoo.so.")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		in := []string{a, b, c}
		got := libCandidates("libfoo.so", in)
		again := libCandidates("libfoo.so", []string{c, b, a})
		if strings.Join(got, "\x00") != strings.Join(again, "\x00") {
			t.Fatalf("order depends on listing order: %q vs %q", got, again)
		}
		for _, n := range got {
			if !strings.HasPrefix(n, "libfoo.so.") {
				t.Fatalf("%q is not a candidate", n)
			}
		}
	})
}
