package testtree

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"aorta-probe/internal/fakeroot"
)

// memoryFS is where TempDir makes its directories: /dev/shm where it is
// usable, and "" where it is not or where TMPDIR names the place for
// temporary files.
var memoryFS = sync.OnceValue(func() string {
	if os.Getenv("TMPDIR") != "" || !usableMemoryFS("/dev/shm") {
		return ""
	}
	return "/dev/shm"
})

// usableMemoryFS says whether dir is a tmpfs that can be written, holds
// executables (a fake root's tools run from it) and has 512 MiB to spare.
func usableMemoryFS(dir string) bool {
	const (
		tmpfsMagic = 0x01021994 // linux/magic.h TMPFS_MAGIC
		stRdonly   = 0x1        // statvfs(3) ST_RDONLY
		stNoexec   = 0x8        // statvfs(3) ST_NOEXEC
		wOK, xOK   = 0x2, 0x1   // access(2)
	)
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Type == tmpfsMagic &&
		st.Flags&(stRdonly|stNoexec) == 0 && st.Bavail*uint64(st.Bsize) >= 512<<20 &&
		syscall.Access(dir, wOK|xOK) == nil
}

// TempDir is tb.TempDir on a memory file system where the machine has one
// (memoryFS), removed when the test ends. Tests expand fake machine roots
// of hundreds of files into it: on the ext4 disk of the VMs this suite runs
// on, creating a file costs about 0.6 ms, thirty times what it costs on
// tmpfs (750 files: 470 ms against 15 ms), and the suite expands some
// 57,000 of them (docs/design-notes.md, "Testing"). Elsewhere it is
// tb.TempDir.
func TempDir(tb testing.TB) string {
	tb.Helper()
	base := memoryFS()
	if base == "" {
		return tb.TempDir()
	}
	dir, err := os.MkdirTemp(base, "aorta-probe-"+dirName(tb.Name())+"-")
	if err != nil {
		tb.Fatalf("TempDir: %v", err)
	}
	tb.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			tb.Errorf("TempDir RemoveAll cleanup: %v", err)
		}
	})
	return dir
}

// Archive expands the fake machine root archive text (internal/fakeroot's
// format, its comment line first) into a new TempDir and returns it.
func Archive(tb testing.TB, text string) string {
	tb.Helper()
	return expand(tb, "archive", []byte(text), nil)
}

// ArchiveFile expands the archive file path into a new TempDir, edit (when
// not nil) applied to it first, and returns the directory.
func ArchiveFile(tb testing.TB, path string, edit func(*fakeroot.Archive)) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return expand(tb, path, data, edit)
}

func expand(tb testing.TB, name string, data []byte, edit func(*fakeroot.Archive)) string {
	tb.Helper()
	a, err := fakeroot.Parse(data)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	if edit != nil {
		edit(a)
	}
	dir := TempDir(tb)
	if err := a.Expand(dir); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// dirName is a test's name as a directory name prefix: its letters and
// digits, the rest as '_', at most 64 bytes.
func dirName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, name)
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}
