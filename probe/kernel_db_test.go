package probe

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"aorta-probe/internal/pyfmt"
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
		if got := gfxDirName.MatchString(in); got != want {
			t.Errorf("gfxDirName(%q) = %v", in, got)
		}
	}
	got := gfxArch.FindAllString("Kernels.so-000-GFX942-gfx90a_gfx1201xnack.hsaco", -1)
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
	mkfiles(t, root, "lib/TensileLibrary_A.dat", "lib/TensileLibrary_B.dat", "lib/notes.md", "lib/.dat", "lib/gone.co -> nowhere")
	s := testState(t, root)
	got := nameFingerprint(s, "/lib", tensileDBSuffixes)
	if want := filenamesHash([]string{"TensileLibrary_A.dat", "TensileLibrary_B.dat"}); got == nil || *got != want {
		t.Fatalf("flat: %v, want %s", got, want)
	}
	if want := "filenames-sha256:" + sha256Hex("TensileLibrary_A.dat\nTensileLibrary_B.dat")[len("sha256:"):]; *got != want {
		t.Errorf("join rule: %s, want %s", *got, want)
	}
	mkfiles(t, root, "lib/TensileLibrary_C.dat", "lib/gfx950/TensileLibrary_gfx950.co", "lib/gfx950_x/skip.dat", "lib/GFX90A/y.yaml", "lib/gfx942 -> gfx950")
	got2 := nameFingerprint(s, "/lib", tensileDBSuffixes)
	want2 := filenamesHash([]string{"TensileLibrary_A.dat", "TensileLibrary_B.dat", "TensileLibrary_C.dat",
		"gfx950/TensileLibrary_gfx950.co", "GFX90A/y.yaml", "gfx942/TensileLibrary_gfx950.co"})
	if got2 == nil || *got2 != want2 {
		t.Errorf("with subdirs: %v, want %s", got2, want2)
	}
	// Only subdirectories: the combined fingerprint (no recursion) is null.
	mkfiles(t, root, "x/hipblaslt/library/gfx950/a.dat", "x/rocblas/library/gfx950/b.dat")
	if nameFingerprint(s, "/x/hipblaslt/library", tensileDBSuffixes) == nil {
		t.Error("per-library fingerprint must see gfx950/")
	}
	if c := combinedFingerprint(s, "/x/hipblaslt/library", "/x/rocblas/library"); c != nil {
		t.Errorf("combined = %s, want null (no recursion)", *c)
	}
	mkfiles(t, root, "x/rocblas/library/c.co")
	if c := combinedFingerprint(s, "/x/hipblaslt/library", "/x/rocblas/library"); c == nil || *c != filenamesHash([]string{"rocblas/c.co"}) {
		t.Errorf("combined = %v", c)
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
