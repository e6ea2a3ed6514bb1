package probe

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

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

func TestResolveROCmRoots(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkf := func(p, data string) {
		mk(filepath.Dir(p))
		if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := "/usr/lib/python3.12/site-packages"
	mk(site + "/_rocm_sdk_core/bin")
	mk(site + "/_rocm_sdk_libraries/lib")
	mk(site + "/_rocm_sdk_devel/include")
	mk("/opt/rocm-7.2.1/lib")
	mk("/srv/shim/bin")
	mk("/opt/empty")
	root := NewFS(dir, "/", false)
	none := func() []string { return nil }
	for _, tc := range []struct {
		name string
		env  map[string]string
		cwd  string
		want rocmRoots
	}{
		{"nothing", nil, "/", rocmRoots{"/opt/rocm", "/opt/rocm", "/opt/rocm", "none", "classic"}},
		{"ROCM_PATH classic", map[string]string{"ROCM_PATH": "/opt/rocm-7.2.1/"}, "/",
			rocmRoots{"/opt/rocm-7.2.1", "/opt/rocm-7.2.1", "/opt/rocm-7.2.1", "ROCM_PATH", "classic"}},
		{"ROCM_PATH loose test accepts a bin-only tree", map[string]string{"ROCM_PATH": "/srv/shim"}, "/",
			rocmRoots{"/srv/shim", "/srv/shim", "/srv/shim", "ROCM_PATH", "classic"}},
		{"ROCM_PATH not a root falls to ROCM_HOME", map[string]string{"ROCM_PATH": "/opt/empty", "ROCM_HOME": "/opt/rocm-7.2.1"}, "/",
			rocmRoots{"/opt/rocm-7.2.1", "/opt/rocm-7.2.1", "/opt/rocm-7.2.1", "ROCM_HOME", "classic"}},
		{"relative ROCM_PATH against cwd", map[string]string{"ROCM_PATH": "rocm-7.2.1/lib/.."}, "/opt",
			rocmRoots{"/opt/rocm-7.2.1", "/opt/rocm-7.2.1", "/opt/rocm-7.2.1", "ROCM_PATH", "classic"}},
		{"relative ROCM_PATH without cwd is skipped", map[string]string{"ROCM_PATH": "rocm-7.2.1"}, "",
			rocmRoots{"/opt/rocm", "/opt/rocm", "/opt/rocm", "none", "classic"}},
		{"wheel via _rocm_sdk_devel", map[string]string{"ROCM_PATH": site + "/_rocm_sdk_devel"}, "/",
			rocmRoots{site + "/_rocm_sdk_core", site + "/_rocm_sdk_libraries", site + "/_rocm_sdk_devel", "ROCM_PATH", "wheel"}},
		{"wheel candidate without core siblings", map[string]string{"ROCM_HOME": "/opt/rocm-7.2.1/_rocm_sdk_x"}, "/",
			rocmRoots{"/opt/rocm", "/opt/rocm", "/opt/rocm", "none", "classic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			if got := resolveROCmRoots(root, env, tc.cwd, none); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("wheel found on the python search path", func(t *testing.T) {
		env := func(string) (string, bool) { return "", false }
		got := resolveROCmRoots(root, env, "/", func() []string { return pythonSiteDirs(root, env) })
		want := rocmRoots{site + "/_rocm_sdk_core", site + "/_rocm_sdk_libraries", site + "/_rocm_sdk_devel", "import:_rocm_sdk_core", "wheel"}
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("usable /opt/rocm beats the wheel", func(t *testing.T) {
		mkf("/opt/rocm/.info/version", "7.2.1\n")
		env := func(string) (string, bool) { return "", false }
		got := resolveROCmRoots(root, env, "/", func() []string { return pythonSiteDirs(root, env) })
		if got.source != "opt_rocm" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("the 4096-byte version test", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			data []byte
			want bool
		}{
			{"cut inside a multibyte sequence", append(bytes.Repeat([]byte("7"), 4095), "\xc3\xa9"...), true},
			{"invalid byte before the cut", append(bytes.Repeat([]byte("7"), 4095), "\xff\xa9"...), false},
			{"invalid and short", []byte("7.2\xff"), false},
			{"blank", []byte(" \n"), false},
		} {
			d := t.TempDir()
			os.MkdirAll(filepath.Join(d, "opt/rocm/.info"), 0o755)
			os.WriteFile(filepath.Join(d, "opt/rocm/.info/version"), tc.data, 0o644)
			if got := usableOptROCm(NewFS(d, "/", false)); got != tc.want {
				t.Errorf("%s: usable = %v, want %v", tc.name, got, tc.want)
			}
		}
		// A multi-gigabyte version file is read only as far as its first 4 KiB.
		d := t.TempDir()
		os.MkdirAll(filepath.Join(d, "opt/rocm/.info"), 0o755)
		f, _ := os.Create(filepath.Join(d, "opt/rocm/.info/version"))
		f.Truncate(8 << 30)
		f.Close()
		if !usableOptROCm(NewFS(d, "/", false)) {
			t.Error("a huge version file of NUL bytes is non-blank, as Python reads it")
		}
	})
	t.Run("a bin-only /opt/rocm shim does not count", func(t *testing.T) {
		d := t.TempDir()
		if err := os.MkdirAll(filepath.Join(d, "opt/rocm/bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if usableOptROCm(NewFS(d, "/", false)) {
			t.Error("bin-only shim accepted")
		}
	})
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
			t.Errorf("%s: %q, want %q", tc.name, ptrV(got), tc.want)
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

// TestOptROCmVersionDev: .info/version-dev makes /opt/rocm usable only when
// it reads as a marker; a blank, non-UTF-8, unreadable or directory one
// does not (the spec's example: bin/ and a " " version-dev).
func TestOptROCmVersionDev(t *testing.T) {
	for _, tc := range []struct {
		name string
		mk   func(p string) error
		want bool
	}{
		{"non-blank", func(p string) error { return os.WriteFile(p, []byte("7.2.1-81\n"), 0o644) }, true},
		{"blank", func(p string) error { return os.WriteFile(p, []byte(" "), 0o644) }, false},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o644) }, false},
		{"not UTF-8", func(p string) error { return os.WriteFile(p, []byte("7.2\xff"), 0o644) }, false},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }, false},
		{"a dangling link", func(p string) error { return os.Symlink("gone", p) }, false},
	} {
		d := t.TempDir()
		if err := os.MkdirAll(filepath.Join(d, "opt/rocm/bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(d, "opt/rocm/.info"), 0o755)
		if err := tc.mk(filepath.Join(d, "opt/rocm/.info/version-dev")); err != nil {
			t.Fatal(err)
		}
		if got := usableOptROCm(NewFS(d, "/", false)); got != tc.want {
			t.Errorf("%s: usable = %v, want %v", tc.name, got, tc.want)
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
