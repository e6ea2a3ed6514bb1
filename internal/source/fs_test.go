package source

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

func TestAttr(t *testing.T) {
	src := fakeFS(t, `
-- sys/a/vendor --
  0x1002
-- sys/a/crlf --
gfx942`+"\r\n"+`
-- sys/a/empty --
-- sys/a/blank --
`+" \t"+`
-- sys/a/latin1 --
`+"caf\xe9"+`
-- sys/a/page --
`+strings.Repeat("x", AttrMax-1)+`
-- sys/a/large --
`+strings.Repeat("x", AttrMax)+`
-- sys/a/dir [dir] --
`)
	for _, tc := range []struct {
		name, want  string
		kind, errno error
	}{
		{"vendor", "0x1002", nil, nil},
		{"crlf", "gfx942", nil, nil},
		{"page", strings.Repeat("x", AttrMax-1), nil, nil},
		{"empty", "", ErrParse, nil},
		{"blank", "", ErrParse, nil},
		{"latin1", "", ErrParse, nil},
		{"large", "", ErrRead, syscall.EFBIG},
		{"dir", "", ErrRead, syscall.EISDIR},
		{"missing", "", ErrRead, fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := src.Attr("/sys/a/" + tc.name)
			if got != tc.want || !errors.Is(err, tc.kind) || (tc.kind == nil) != (err == nil) {
				t.Fatalf("Attr = %q, %v; want %q, %v", got, err, tc.want, tc.kind)
			}
			if tc.errno != nil && !errors.Is(err, tc.errno) {
				t.Errorf("Attr error %v does not wrap %v", err, tc.errno)
			}
			if err != nil && !strings.Contains(err.Error(), "/sys/a/"+tc.name) {
				t.Errorf("Attr error %q does not name the path", err)
			}
		})
	}
}

// TestCause: a reason quotes the machine's error, not this package's
// wrapping of it.
func TestCause(t *testing.T) {
	_, err := fakeFS(t, "").Attr("/sys/none")
	var pe *fs.PathError
	if c := Cause(err); !errors.As(c, &pe) || c.Error() != pe.Error() || pe.Path != "/sys/none" {
		t.Errorf("Cause = %#v, want the *fs.PathError of the read", c)
	}
	plain := errors.New("x")
	if Cause(plain) != plain || Cause(nil) != nil {
		t.Error("Cause of an error of another package is itself")
	}
	if e := (&Error{Kind: ErrName, Path: ".."}); Cause(e) != e || e.Error() != `not a sysfs name: ..` {
		t.Errorf("an Error without a cause: %v", e)
	}
}

func FuzzSysName(f *testing.F) {
	for _, s := range []string{"rdma0", "", ".", "..", "a/b", "...", "x\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, n string) {
		err := sysName(n)
		bad := n == "" || n == "." || n == ".." || strings.Contains(n, "/")
		if bad != (err != nil) || err != nil && !errors.Is(err, ErrName) {
			t.Fatalf("sysName(%q) = %v", n, err)
		}
	})
}
