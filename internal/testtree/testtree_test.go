package testtree

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"aorta-probe/internal/fakeroot"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestMake: a file holds its own name, "x/" is a directory, "a -> b" a
// link to b, each with its parents.
func TestMake(t *testing.T) {
	root := t.TempDir()
	Make(t, root, "etc/os-release", "opt/rocm/", "usr/lib/libx.so -> ../../opt/rocm")
	if b, err := os.ReadFile(filepath.Join(root, "etc/os-release")); err != nil || string(b) != "etc/os-release" {
		t.Errorf("file: %q %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "opt/rocm")); err != nil || !fi.IsDir() {
		t.Errorf("directory: %v", err)
	}
	if target, err := os.Readlink(filepath.Join(root, "usr/lib/libx.so")); err != nil || target != "../../opt/rocm" {
		t.Errorf("link: %q %v", target, err)
	}
}

// TestScript: the script runs as an executable /bin/sh tool.
func TestScript(t *testing.T) {
	out, err := exec.Command(Script(t, `echo "ran $1"`), "x").Output()
	if err != nil || string(out) != "ran x\n" {
		t.Errorf("script: %q %v", out, err)
	}
}

// TestFiles: each file holds its content under its parents; one starting
// "#!" is a tool that runs, the others are not executable.
func TestFiles(t *testing.T) {
	root := t.TempDir()
	Files(t, root, map[string]string{"etc/os-release": "ID=debian\n", "bin/tool": "#!/bin/sh\necho ran\n"})
	if b, err := os.ReadFile(filepath.Join(root, "etc/os-release")); err != nil || string(b) != "ID=debian\n" {
		t.Errorf("file: %q %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "etc/os-release")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("file mode: %v %v", fi.Mode(), err)
	}
	if out, err := exec.Command(filepath.Join(root, "bin/tool")).Output(); err != nil || string(out) != "ran\n" {
		t.Errorf("script: %q %v", out, err)
	}
}

// TestArchive: the archive's files and links are expanded into a new
// directory.
func TestArchive(t *testing.T) {
	root := Archive(t, "a root\n-- etc/hostname --\nnode-a\n-- etc/name -> hostname --\n")
	if b, err := os.ReadFile(filepath.Join(root, "etc/name")); err != nil || string(b) != "node-a\n" {
		t.Errorf("through the link: %q %v", b, err)
	}
}

// TestArchiveFile: the archive file is expanded with the edit applied.
func TestArchiveFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "root.txtar")
	if err := os.WriteFile(path, []byte("a root\n-- etc/hostname --\nnode-a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := ArchiveFile(t, path, func(a *fakeroot.Archive) {
		a.Files = append(a.Files, fakeroot.File{Path: "etc/added", Data: []byte("x\n"), Mode: 0o644, Size: -1})
	})
	for _, f := range []string{"etc/hostname", "etc/added"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
