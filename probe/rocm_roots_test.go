package probe

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"aorta-probe/internal/machine"
)

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
	root := machine.NewFS(dir, "/", false)
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
			if got := usableOptROCm(machine.NewFS(d, "/", false)); got != tc.want {
				t.Errorf("%s: usable = %v, want %v", tc.name, got, tc.want)
			}
		}
		// A multi-gigabyte version file is read only as far as its first 4 KiB.
		d := t.TempDir()
		os.MkdirAll(filepath.Join(d, "opt/rocm/.info"), 0o755)
		f, _ := os.Create(filepath.Join(d, "opt/rocm/.info/version"))
		f.Truncate(8 << 30)
		f.Close()
		if !usableOptROCm(machine.NewFS(d, "/", false)) {
			t.Error("a huge version file of NUL bytes is non-blank, as Python reads it")
		}
	})
	t.Run("a bin-only /opt/rocm shim does not count", func(t *testing.T) {
		d := t.TempDir()
		if err := os.MkdirAll(filepath.Join(d, "opt/rocm/bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if usableOptROCm(machine.NewFS(d, "/", false)) {
			t.Error("bin-only shim accepted")
		}
	})
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
		if got := usableOptROCm(machine.NewFS(d, "/", false)); got != tc.want {
			t.Errorf("%s: usable = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPyNormpath(t *testing.T) {
	for in, want := range map[string]string{
		"/opt/rocm/":          "/opt/rocm",
		"/opt//rocm/./lib/..": "/opt/rocm",
		"//net/rocm":          "//net/rocm",
		"///x":                "/x",
		"/../x":               "/x",
	} {
		if got := pyNormpath(in); got != want {
			t.Errorf("pyNormpath(%q) = %q, want %q", in, got, want)
		}
	}
}
