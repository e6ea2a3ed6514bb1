package output

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestDestination: the file a write creates, links followed even when
// they dangle, relative targets taken from the link's directory, directory
// links resolved; "" for a FIFO, which is written through.
func TestDestination(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.Symlink("d", filepath.Join(dir, "ld"))
	os.Symlink("x.cap", filepath.Join(dir, "y.cap"))        // dangling
	os.Symlink("../x.cap", filepath.Join(dir, "d/up.json")) // dangling, relative to d
	os.Symlink("y.cap", filepath.Join(dir, "chain"))        // a link to a dangling link
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "x.cap")
	for _, p := range []string{"x.cap", "y.cap", "chain", "d/up.json", "ld/up.json", "ld/../x.cap"} {
		got, err := Destination(filepath.Join(dir, p))
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", p, got, err, want)
		}
	}
	if got, err := Destination(fifo); err != nil || got != "" {
		t.Errorf("a FIFO: %q, %v; want \"\" (written through)", got, err)
	}
}

// TestCheckWritable: what a write would fail on is found before it, and
// the check leaves nothing behind.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "ok.json"), ""},
		{file, ""},
		{filepath.Join(dir, "missing", "x.json"), "[Errno 2] No such file or directory"},
		{filepath.Join(file, "x.json"), "[Errno 20] Not a directory"},
		{filepath.Join(dir, strings.Repeat("n", 300)), "[Errno 36] File name too long"},
		{dir, "[Errno 21] Is a directory"},
	} {
		err := CheckWritable(tc.path)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%.60s: %v; want %q", tc.path, err, tc.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}

// TestStage: a staged file is not in place until Commit, and Abort leaves
// the destination as it was.
func TestStage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.cap")
	os.WriteFile(p, []byte("old"), 0o644)
	s, err := Stage(p, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("staged content already in place: %q", b)
	}
	s.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after Abort: %q", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("Abort left %v", left)
	}
	s, err = Stage(p, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background(), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("after Commit: %q", b)
	}
}

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
