package probe

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/testtree"
)

func TestPySuffix(t *testing.T) {
	for in, want := range map[string]string{
		"a.b.dat": ".dat", ".dat": "", "x.": "", "x": "", "a..dat": ".dat", "..dat": ".dat",
		"TensileLibrary_gfx942.co": ".co", "gfx942_120.HIP.fdb.txt": ".txt", "k.DAT": ".DAT", "": "",
	} {
		if got := pySuffix(in); got != want {
			t.Errorf("pySuffix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGfxPatterns(t *testing.T) {
	for in, want := range map[string]bool{"gfx950": true, "gfx90a": true, "GFX942": true, "Gfx1201": true,
		"gfx942_120": false, "gfx": false, "xgfx942": false, "gfx94g": false} {
		if got := gfxDirName().MatchString(in); got != want {
			t.Errorf("gfxDirName(%q) = %v", in, got)
		}
	}
	got := gfxArch().FindAllString("Kernels.so-000-GFX942-gfx90a_gfx1201xnack.hsaco", -1)
	if want := []string{"GFX942", "gfx90a", "gfx1201"}; !reflect.DeepEqual(got, want) {
		t.Errorf("gfxArch = %q, want %q", got, want)
	}
}

func TestPyLess(t *testing.T) {
	// Python's code point order: U+00E9 < U+DCFF (a surrogate-escaped
	// byte) < U+E000; Go's byte order would put \xff after \xee\x80\x80.
	in := []string{"\ue000", "a\xff", "a\u00e9", "a", "B", "\U0001F600"}
	pyfmt.Sort(in)
	want := []string{"B", "a", "a\u00e9", "a\xff", "\ue000", "\U0001F600"}
	if !reflect.DeepEqual(in, want) {
		t.Errorf("sortPy = %q, want %q", in, want)
	}
	if pyfmt.Less("a", "a") || !pyfmt.Less("a", "a\xff") || pyfmt.Less("a\xff", "a") {
		t.Error("prefix order")
	}
}

// The spec's example: adding TensileLibrary_C.dat changes the fingerprint;
// a flat directory fingerprints as before subdirectory support.
func TestNameFingerprint(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "lib/TensileLibrary_A.dat", "lib/TensileLibrary_B.dat", "lib/notes.md", "lib/.dat")
	s := testState(t, root)
	got := nameFingerprint(s, "/lib", tensileDBSuffixes)
	if want := filenamesHash([]string{"TensileLibrary_A.dat", "TensileLibrary_B.dat"}); got == nil || *got != want {
		t.Fatalf("flat: %v, want %s", got, want)
	}
	if want := "filenames-sha256:" + sha256Hex("TensileLibrary_A.dat\nTensileLibrary_B.dat")[len("sha256:"):]; *got != want {
		t.Errorf("join rule: %s, want %s", *got, want)
	}
	testtree.Make(t, root, "lib/TensileLibrary_C.dat", "lib/gfx950/TensileLibrary_gfx950.co", "lib/gfx950_x/skip.dat", "lib/GFX90A/y.yaml", "lib/gfx942 -> gfx950")
	got2 := nameFingerprint(s, "/lib", tensileDBSuffixes)
	want2 := filenamesHash([]string{"TensileLibrary_A.dat", "TensileLibrary_B.dat", "TensileLibrary_C.dat",
		"gfx950/TensileLibrary_gfx950.co", "GFX90A/y.yaml", "gfx942/TensileLibrary_gfx950.co"})
	if got2 == nil || *got2 != want2 {
		t.Errorf("with subdirs: %v, want %s", got2, want2)
	}
	for _, d := range []string{"/nope", "/lib/TensileLibrary_A.dat"} {
		if nameFingerprint(s, d, tensileDBSuffixes) != nil {
			t.Errorf("%s: want null", d)
		}
	}
	// A directory with no member.
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if nameFingerprint(s, "/empty", tensileDBSuffixes) != nil {
		t.Error("empty dir: want null")
	}
}

// TestCombinedFingerprintGfx pins tensile.kernel_db_combined_hash at the
// newest 1.16 revision (docs/rocm-libraries.md#hash-and-fingerprint-forms):
// one gfx level is read, a flat tree hashes as before, and the spec's three
// trees give upstream's hashes (their first 12 hex digits).
func TestCombinedFingerprintGfx(t *testing.T) {
	const hb, rb = "/r/hipblaslt/library", "/r/rocblas/library"
	for _, tc := range []struct {
		name  string
		files []string
		lines []string // nil: null
		head  string   // upstream's value starts so
	}{
		{"flat", []string{"r/hipblaslt/library/TensileLibrary_gfx942.dat", "r/rocblas/library/TensileLibrary_gfx942.dat"},
			[]string{"hipblaslt/TensileLibrary_gfx942.dat", "rocblas/TensileLibrary_gfx942.dat"}, "0b808271f938"},
		{"gfx950 level", []string{"r/hipblaslt/library/TensileLibrary_gfx942.dat", "r/rocblas/library/TensileLibrary_gfx942.dat",
			"r/hipblaslt/library/gfx950/TensileLibrary_lazy_gfx950.dat", "r/hipblaslt/library/gfx950/x.co"},
			[]string{"hipblaslt/TensileLibrary_gfx942.dat", "rocblas/TensileLibrary_gfx942.dat",
				"hipblaslt/gfx950/TensileLibrary_lazy_gfx950.dat", "hipblaslt/gfx950/x.co"}, "1d417e41ae64"},
		{"wheel with only nested kernels", []string{"r/hipblaslt/library/gfx950/TensileLibrary_gfx950.dat"},
			[]string{"hipblaslt/gfx950/TensileLibrary_gfx950.dat"}, "43fbb932ec92"},
		{"no deeper level, names as written", []string{"r/rocblas/library/GFX90A/k.co", "r/rocblas/library/gfx90a/sub/deep.dat",
			"r/rocblas/library/gfx942_1/k.dat", "r/rocblas/library/gfx942.dat/"}, []string{"rocblas/GFX90A/k.co"}, ""},
		{"dangling link README", []string{"r/hipblaslt/library/TensileLibrary_gfx942.dat", "r/rocblas/library/TensileLibrary_gfx942.dat",
			"r/hipblaslt/library/README -> nowhere"}, nil, ""},
		{"rocblas dir a symlink loop", []string{"r/hipblaslt/library/TensileLibrary_gfx942.dat", "r/rocblas/library -> library"}, nil, ""},
		{"looping child of a gfx dir", []string{"r/hipblaslt/library/TensileLibrary_gfx942.dat", "r/hipblaslt/library/gfx950/l.co -> l.co"}, nil, ""},
		{"missing and not-a-dir dirs are skipped", []string{"r/hipblaslt/library/TensileLibrary_gfx942.dat", "r/rocblas"},
			[]string{"hipblaslt/TensileLibrary_gfx942.dat"}, ""},
		{"nothing", []string{"r/hipblaslt/library/"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Make(t, root, tc.files...)
			got := combinedFingerprint(testState(t, root), hb, rb)
			if tc.lines == nil {
				if got != nil {
					t.Errorf("got %s, want null", *got)
				}
				return
			}
			want := filenamesHash(tc.lines)
			if got == nil || *got != want {
				t.Fatalf("got %v, want %s", got, want)
			}
			if tc.head != "" && !strings.HasPrefix(want, "filenames-sha256:"+tc.head) {
				t.Errorf("%s does not start with upstream's %s", want, tc.head)
			}
		})
	}
}

// TestCombinedFingerprintErrors: a stat error of a Tensile dir other than
// ENOENT/ENOTDIR, a listing failure of a dir or a gfx dir, and a stat
// failure of any entry make the combined fingerprint null (errors injected
// as the filesystem would answer them, since root reads everything).
func TestCombinedFingerprintErrors(t *testing.T) {
	const hb, rb = "/r/hipblaslt/library", "/r/rocblas/library"
	for _, tc := range []struct {
		name string
		errs map[string]syscall.Errno
		want bool // a hash
	}{
		{"none", nil, true},
		{"rocblas dir EACCES on stat", map[string]syscall.Errno{"stat " + rb: syscall.EACCES}, false},
		{"rocblas dir ENOENT on stat", map[string]syscall.Errno{"stat " + rb: syscall.ENOENT}, true},
		{"hipblaslt dir not listable", map[string]syscall.Errno{"open " + hb: syscall.EACCES}, false},
		{"gfx dir not listable", map[string]syscall.Errno{"open " + hb + "/gfx950": syscall.EACCES}, false},
		{"entry without a kernel suffix fails stat", map[string]syscall.Errno{"stat " + rb + "/notes.md": syscall.EIO}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Make(t, root, "r/hipblaslt/library/a.dat", "r/hipblaslt/library/gfx950/b.co", "r/rocblas/library/c.yaml", "r/rocblas/library/notes.md")
			s := testState(t, root)
			s.root.SetFaults(tc.errs)
			if got := combinedFingerprint(s, hb, rb); (got != nil) != tc.want {
				t.Errorf("got %v, want a hash: %v", got, tc.want)
			}
		})
	}
}

// TestNameFingerprintStat: kernel_db_revision stats every entry before the
// suffix test and every child of a gfx dir; any failure is null. The
// spec's example: TensileLibrary_gfx942.dat plus a dangling README.
func TestNameFingerprintStat(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		errs  map[string]syscall.Errno
		want  []string // nil: null
	}{
		{"kernel only", []string{"l/TensileLibrary_gfx942.dat"}, nil, []string{"TensileLibrary_gfx942.dat"}},
		{"dangling README", []string{"l/TensileLibrary_gfx942.dat", "l/README -> nowhere"}, nil, nil},
		{"looping entry", []string{"l/TensileLibrary_gfx942.dat", "l/x.co -> x.co"}, nil, nil},
		{"ENOTDIR entry", []string{"l/TensileLibrary_gfx942.dat", "l/f", "l/bad -> f/x"}, nil, nil},
		{"dangling child of a gfx dir", []string{"l/TensileLibrary_gfx942.dat", "l/gfx950/k.co -> gone"}, nil, nil},
		{"dangling child of another dir is not read", []string{"l/TensileLibrary_gfx942.dat", "l/other/k.co -> gone"}, nil, []string{"TensileLibrary_gfx942.dat"}},
		{"root a dangling link", []string{"x", "l -> gone"}, nil, nil},
		{"gfx dir not listable", []string{"l/TensileLibrary_gfx942.dat", "l/gfx950/k.co"}, map[string]syscall.Errno{"open /l/gfx950": syscall.EACCES}, nil},
		{"entry stat EACCES", []string{"l/TensileLibrary_gfx942.dat", "l/notes"}, map[string]syscall.Errno{"stat /l/notes": syscall.EACCES}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Make(t, root, tc.files...)
			s := testState(t, root)
			s.root.SetFaults(tc.errs)
			got := nameFingerprint(s, "/l", tensileDBSuffixes)
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("got %s, want null", *got)
			case tc.want != nil && (got == nil || *got != filenamesHash(tc.want)):
				t.Errorf("got %v, want %s", got, filenamesHash(tc.want))
			}
		})
	}
}

// TestRelativeEnvPathUnderRoot: a relative path from the environment
// (MIOPEN_SYSTEM_DB_PATH=db) is taken against the working directory inside
// the root, never against the host's.
func TestRelativeEnvPathUnderRoot(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "work/db/gfx942.txt", "work/db/gfx90a/x.txt")
	for _, tc := range []struct {
		cwd  string
		want bool
	}{{"/work", true}, {"/", false}, {"", false}} {
		s := testState(t, root)
		s.opt.Cwd = tc.cwd
		s.root = machine.NewFS(root, tc.cwd, false)
		if got := nameFingerprint(s, "db", miopenDBSuffixes) != nil; got != tc.want {
			t.Errorf("cwd %q: db fingerprinted %v, want %v", tc.cwd, got, tc.want)
		}
	}
	for _, rv := range resolvers {
		r := machine.NewFS(root, "/work", rv.portable)
		if !r.IsDir("db") || r.ReadText("db/gfx942.txt") == nil || r.ReadText("./db/../db/gfx942.txt") == nil {
			t.Errorf("%s: relative paths not read against the cwd inside the root", rv.name)
		}
	}
	// The host directory the test runs in holds a db/ the root has not.
	host := t.TempDir()
	testtree.Make(t, host, "db/gfx942.txt")
	t.Chdir(host)
	s := testState(t, root)
	s.root = machine.NewFS(root, "/", false)
	if nameFingerprint(s, "db", miopenDBSuffixes) != nil {
		t.Error("the host's working directory was read")
	}
}
