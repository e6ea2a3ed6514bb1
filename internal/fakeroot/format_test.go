package fakeroot

import (
	"os"
	"strings"
	"testing"

	_ "aorta-probe/internal/golden"
)

// TestFormatRoundTrip: every kind of content Format writes parses back to
// the same bytes and attributes.
func TestFormatRoundTrip(t *testing.T) {
	in := &Archive{Comment: "a capture\ncwd: /\n", Files: []File{
		{Path: "etc/os-release", Data: []byte("ID=ubuntu\n"), Mode: 0o644, Size: -1},
		{Path: "proc/self/cgroup", Data: []byte("0::/\n-- x --\n"), Mode: 0o644, Size: -1},
		{Path: "proc/1/environ", Data: []byte("A=1\x00B=2\x00"), Mode: 0o644, Size: -1},
		{Path: "bin/noeol", Data: []byte("v1.0"), Mode: 0o755, Size: -1},
		{Path: "bin/crlf", Data: []byte("a\r\nb\xff"), Mode: 0o600, Size: -1},
		{Path: "lib/big.so", Mode: 0o644, Size: 1 << 30, SHA256: "ab12"},
		{Path: "lib/libc.so.6", Mode: 0o644, Size: 4096, Sparse: []Chunk{{100, []byte("GNU C Library \"x\" release version 2.39.")}}},
		{Path: "proc/1/mem", Errno: "EACCES"},
		{Path: "opt/rocm", Link: "rocm-7.2.0"},
		{Path: "sys/empty", Dir: true},
		{Path: "empty", Mode: 0o644, Size: -1, Data: []byte{}},
	}}
	out, err := Parse(Format(in))
	if err != nil {
		t.Fatal(err)
	}
	if out.Comment != in.Comment || len(out.Files) != len(in.Files) {
		t.Fatalf("got %q with %d files", out.Comment, len(out.Files))
	}
	for i, w := range in.Files {
		g := out.Files[i]
		if w.Data == nil {
			w.Data = []byte{}
		}
		if g.Path != w.Path || string(g.Data) != string(w.Data) || g.Link != w.Link || g.Dir != w.Dir ||
			g.Errno != w.Errno || g.SHA256 != w.SHA256 || (w.Link == "" && !w.Dir && w.Errno == "" && (g.Mode != w.Mode || g.Size != w.Size)) ||
			len(g.Sparse) != len(w.Sparse) {
			t.Errorf("file %d: got %+v, want %+v", i, g, w)
		}
	}
	dir := t.TempDir()
	if err := out.Expand(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dir + "/lib/libc.so.6")
	if err != nil || len(b) != 4096 || !strings.Contains(string(b[100:]), `GNU C Library "x" release version 2.39.`) {
		t.Errorf("sparse file: %d bytes, %v", len(b), err)
	}
	if _, err := os.Lstat(dir + "/proc/1/mem"); err == nil {
		t.Error("an [errno] entry was created")
	}
	if fi, err := os.Stat(dir + "/lib/big.so"); err != nil || fi.Size() != 1<<30 {
		t.Errorf("big.so: %v %v", fi, err)
	}
}

// FuzzFormatRoundTrip: whatever the bytes of a file, Format writes a
// section that Parse reads back to the same bytes.
func FuzzFormatRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a\n", "a", "-- x --\n", "a\x00b\x00", "\r\n", "\xff", "x\n-- y -> z --\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse(Format(&Archive{Files: []File{{Path: "f", Data: data, Mode: 0o644, Size: -1}, {Path: "g", Mode: 0o644, Size: -1}}}))
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Files) != 2 || string(a.Files[0].Data) != string(data) {
			t.Fatalf("round trip of %q: %+v", data, a.Files)
		}
	})
}
