package fakeroot

import (
	"os"
	"path/filepath"
	"testing"

	_ "aorta-probe/internal/golden"
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
