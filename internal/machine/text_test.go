package machine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/pyfmt"
)

// TestReadTextHostile: read-text never hangs or reads unbounded data, and
// each odd file type is simply "unreadable".
func TestReadTextHostile(t *testing.T) {
	dir := t.TempDir()
	r := NewFS(dir, "/", false)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "crlf"), []byte(" 7.2.1\r\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "blank"), []byte(" \n\t"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "latin1"), []byte("7.2\xe9"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	must(os.Symlink("loop", filepath.Join(dir, "loop")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	huge, err := os.Create(filepath.Join(dir, "huge"))
	must(err)
	must(huge.Truncate(3 << 30)) // sparse 3 GiB
	huge.Close()

	if got := r.ReadText("/crlf"); got == nil || *got != "7.2.1" {
		t.Errorf("crlf: %v", got)
	}
	for _, p := range []string{"/blank", "/latin1", "/fifo", "/dir", "/loop", "/zero", "/huge", "/missing"} {
		if got := r.ReadText(p); got != nil {
			t.Errorf("%s: got %q, want nil", p, *got)
		}
	}
	if _, err := r.ReadFile("/missing", 10); err == nil || err.(*os.PathError).Path != "/missing" {
		t.Errorf("error must name the logical path: %v", err)
	}
}

// TestReadMarker: .info/version and .info/version-dev are bounded markers
// (docs/rocm-roots.md#version-markers): 4096 bytes, strict UTF-8 except a
// sequence the limit cut, no newline translation, stripped. The spec's
// three examples first.
func TestReadMarker(t *testing.T) {
	sp := func(n int) string { return strings.Repeat(" ", n) }
	for _, tc := range []struct {
		name string
		data string
		want string // "": null
	}{
		{"CR kept", "7.2\r1\r\n", "7.2\r1"},
		{"5000 bytes: the first 4096", strings.Repeat("7", 5000), strings.Repeat("7", 4096)},
		{"invalid byte past the limit", "7.2.1" + sp(4100) + "\xff", "7.2.1"},
		{"CRLF inside", "7.2\r\n1", "7.2\r\n1"},
		{"cut inside a multibyte sequence", strings.Repeat("7", 4095) + "\xc3\xa9", strings.Repeat("7", 4095)},
		{"incomplete sequence at the real end", "7.2\xc3", ""},
		{"invalid byte before the limit", "7.2\xff", ""},
		{"invalid lead cut at the limit", strings.Repeat("7", 4095) + "\xff\xa9", ""},
		{"blank", " \n\t\r", ""},
		{"empty", "", ""},
	} {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, "v"), []byte(tc.data), 0o644)
		got := NewFS(d, "/", false).ReadMarker("/v")
		if (got == nil) != (tc.want == "") || got != nil && *got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, golden.OrNull(got), tc.want)
		}
	}
	d := t.TempDir()
	os.Mkdir(filepath.Join(d, "dir"), 0o755)
	os.Symlink("loop", filepath.Join(d, "loop"))
	r := NewFS(d, "/", false)
	for _, p := range []string{"/dir", "/loop", "/missing"} {
		if got := r.ReadMarker(p); got != nil {
			t.Errorf("%s: %q, want null", p, *got)
		}
	}
}

// FuzzMarkerText: whatever the bytes, a marker is valid UTF-8, stripped, at
// most 4096 bytes, and a substring of what was read.
func FuzzMarkerText(f *testing.F) {
	f.Add([]byte("7.2\r1\r\n"))
	f.Add(append(bytes.Repeat([]byte("7"), 4095), 0xc3, 0xa9))
	f.Add(append([]byte("7.2.1"), append(bytes.Repeat([]byte(" "), 4100), 0xff)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > MarkerLimit+1 {
			b = b[:MarkerLimit+1]
		}
		got := MarkerText(b)
		if got == nil {
			return
		}
		if !utf8.ValidString(*got) || *got == "" || pyfmt.Strip(*got) != *got || len(*got) > MarkerLimit || !bytes.Contains(b, []byte(*got)) {
			t.Errorf("markerText(%q) = %q", b, *got)
		}
	})
}

// FuzzReadText checks read-text on arbitrary version-file bytes: never a
// result with surrounding Python whitespace, never an empty string.
func FuzzReadText(f *testing.F) {
	f.Add([]byte("7.2.1\n"))
	f.Add([]byte("\r\n\x1c"))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(dir+"/version", b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := NewFS(dir, "/", false).ReadText("/version")
		if got == nil {
			return
		}
		if *got == "" || pyfmt.Strip(*got) != *got || strings.Contains(*got, "\r") {
			t.Fatalf("readText(%q) = %q", b, *got)
		}
	})
}
