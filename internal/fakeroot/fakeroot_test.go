package fakeroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

func TestParseExpand(t *testing.T) {
	a, err := Parse([]byte(`Scenario text.
env: A=1
env: B=2
-- sys/bus/pci/devices/0000:03:00.0/vendor --
0x1002
-- proc/1/environ [nul] --
container=podman
PATH=/usr/bin
-- bin/tool [exec] --
#!/bin/sh
-- etc/v [noeol] --
7.2
-- empty [dir] --
-- pipe [fifo] --
-- secret [mode 0600] --
x
-- proc/self/ns/mnt -> mnt:[4026531840] --
`))
	if err != nil {
		t.Fatal(err)
	}
	if s := a.Settings(); len(s) != 2 || s[1] != [2]string{"env", "B=2"} {
		t.Errorf("settings %v", s)
	}
	dir := t.TempDir()
	if err := a.Expand(dir); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(dir, p)); return string(b) }
	if got := read("sys/bus/pci/devices/0000:03:00.0/vendor"); got != "0x1002\n" {
		t.Errorf("vendor %q", got)
	}
	if got := read("proc/1/environ"); got != "container=podman\x00PATH=/usr/bin\x00" {
		t.Errorf("environ %q", got)
	}
	if got := read("etc/v"); got != "7.2" {
		t.Errorf("noeol %q", got)
	}
	for p, want := range map[string]os.FileMode{"bin/tool": 0o755, "secret": 0o600} {
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, %v", p, fi.Mode(), err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("pipe: %v %v", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "empty")); err != nil || !fi.IsDir() {
		t.Error("empty dir missing")
	}
	if l, err := os.Readlink(filepath.Join(dir, "proc/self/ns/mnt")); err != nil || l != "mnt:[4026531840]" {
		t.Errorf("link %q %v", l, err)
	}
}

func TestParseRejects(t *testing.T) {
	for _, bad := range []string{
		"-- /abs --\n",
		"-- ../escape --\n",
		"-- x [bogus] --\n",
		"-- x [mode 9] --\n",
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestNoColonInRepository guards the rule that makes archives necessary.
func TestNoColonInRepository(t *testing.T) {
	err := filepath.Walk("../..", func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() && fi.Name() == ".git" {
			return filepath.SkipDir
		}
		for _, c := range fi.Name() {
			if c == ':' {
				t.Errorf("file name with a colon: %s", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

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
