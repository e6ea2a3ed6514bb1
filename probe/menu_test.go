package probe

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/testtree"
)

func TestMenuClassify(t *testing.T) {
	tests := []struct {
		kind         menuKind
		name, suffix string
		logic, ok    bool
	}{
		{tensileMenu, "TensileLibrary_lazy_gfx942.dat", ".dat", true, true},
		{tensileMenu, "Kernels.so-000-gfx942.hsaco", ".hsaco", false, true},
		{tensileMenu, "TensileManifest.txt", ".txt", false, true},
		{tensileMenu, "X.YAML", ".yaml", true, true},
		{tensileMenu, "x.co", ".co", false, true},
		{tensileMenu, ".dat", ".dat", true, true}, // endswith, not pathlib suffix
		{tensileMenu, "x.so", "", false, false},
		{miopenMenu, "gfx942_120.HIP.fdb.txt", ".fdb.txt", true, true},
		{miopenMenu, "gfx942_120.db.txt", ".db.txt", true, true},
		{miopenMenu, "gfx942.ktn.model", ".ktn.model", false, true},
		{miopenMenu, "gfx908.tn.model", ".tn.model", false, true},
		{miopenMenu, "gfx942_120.kdb", ".kdb", true, true},
		{miopenMenu, "user.db", ".db", true, true},
		{miopenMenu, "notes.txt", "", false, false},
		{miopenMenu, "X\xff.KDB", ".kdb", true, true},
	}
	for _, tc := range tests {
		suf, logic, ok := tc.kind.classify(tc.name)
		if suf != tc.suffix || logic != tc.logic || ok != tc.ok {
			t.Errorf("%s %q: (%q,%v,%v), want (%q,%v,%v)", tc.kind.noun, tc.name, suf, logic, ok, tc.suffix, tc.logic, tc.ok)
		}
	}
}

// the synthetic Tensile directory of docs/rocm-libraries.md#test-vectors, and
// the empty directory.
func TestMenu(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "lib/TensileLibrary_lazy_gfx942.dat", "lib/Kernels.so-000-gfx942.hsaco", "lib/TensileManifest.txt", "lib/sub.dat/", "empty/")
	s := testState(t, root)
	m := menu(s, "/lib", tensileMenu)
	if m.Status != "ok" || *m.FileCount != 3 || *m.LogicFileCount != 1 || len(m.GfxArchCoverage) != 1 || m.GfxArchCoverage[0] != "gfx942" || m.Files != nil {
		t.Errorf("menu = %+v", m)
	}
	e := menu(s, "/empty", tensileMenu)
	if e.Status != "ok" || *e.FileCount != 0 || e.GfxArchCoverage == nil ||
		*e.CombinedContentHash != "content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("empty menu = %+v", e)
	}
	s.opt.Extended = true
	if x := menu(s, "/lib", tensileMenu); len(x.Files) != 3 || x.Files[0].Name != "Kernels.so-000-gfx942.hsaco" {
		t.Errorf("extended files = %+v", x.Files)
	}
	if x := menu(s, "/empty", tensileMenu); x.Files == nil {
		t.Error("extended empty menu must list [] not null")
	}
	if g := menu(s, "/gone", miopenMenu); g.Status != "partial" || *g.Reason != "MIOpen db dir missing/unreadable: /gone" || g.FileCount != nil {
		t.Errorf("missing = %+v", g)
	}
}

// Many files hash in parallel and agree with a one-by-one hash.
func TestMenuManyFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "db", "gfx942")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := 0; i < 300; i++ {
		name := filepath.Join(dir, "f"+string(rune('a'+i%26))+string(rune('a'+i/26))+".kdb")
		if err := os.WriteFile(name, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := testState(t, root)
	m := menu(s, "/db", miopenMenu)
	if m.Status != "ok" || *m.FileCount != 300 {
		t.Fatalf("menu = %+v", m)
	}
	m = menu(testStateExt(t, root), "/db", miopenMenu)
	for _, f := range m.Files {
		lines = append(lines, f.Name+"\t"+sha256Hex(filepath.Join(root, "db", f.Name)))
	}
	want := "content-" + sha256Hex(joinLF(lines))
	if *m.CombinedContentHash != want {
		t.Errorf("combined %s, want %s", *m.CombinedContentHash, want)
	}
}

func testStateExt(t *testing.T, root string) *state {
	s := testState(t, root)
	s.opt.Extended = true
	return s
}

func joinLF(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += "\n"
		}
		out += s
	}
	return out
}

// A multi-gigabyte sparse "version" header is not read into memory: it
// reads as unreadable at once (the read-text size cap), and a FIFO header
// does not block.
func TestHostileHeaders(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "opt/rocm/lib/")
	h := filepath.Join(root, "opt/rocm/include/hipblaslt/hipblaslt-version.h")
	if err := os.MkdirAll(filepath.Dir(h), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h, []byte("#define HIPBLASLT_VERSION_TWEAK abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(h, 6<<30); err != nil {
		t.Skipf("sparse file: %v", err)
	}
	mi := filepath.Join(root, "opt/rocm/include/miopen/version.h")
	if err := os.MkdirAll(filepath.Dir(mi), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(mi, 0o644); err != nil {
		t.Fatal(err)
	}
	s := testState(t, root)
	s.collector.rocm = func() rocmRoots { return classicRoots("/opt/rocm", "opt_rocm") }
	// therock is awaited: give it a finished slot.
	finishBlock(s, theRockBlock, theRock{}, "hipblaslt")
	g := collectGemm(s, hipblasltLib)
	if g.RocmReleaseTweak != nil || len(s.reasons) == 0 ||
		s.reasons[0] != "hipblaslt.rocm_release_tweak: /opt/rocm/include/hipblaslt/hipblaslt-version.h not readable" {
		t.Errorf("sparse header: %v %q", g.RocmReleaseTweak, s.reasons)
	}
	m := collectMIOpen(s)
	if m.PackageVersion != nil {
		t.Error("FIFO header parsed")
	}
}

// A FIFO where a catalog directory or a gfx subdirectory should be is "not
// a directory": nothing blocks, nothing is listed.
func TestMenuFIFODirs(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "lib/a.dat")
	for _, p := range []string{"fifo", "lib/gfx942"} {
		if err := syscall.Mkfifo(filepath.Join(root, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := testState(t, root)
	if m := menu(s, "/fifo", tensileMenu); *m.Reason != "Tensile library dir missing/unreadable: /fifo" {
		t.Errorf("fifo dir: %+v", m)
	}
	if nameFingerprint(s, "/fifo", tensileDBSuffixes) != nil {
		t.Error("fifo dir fingerprinted")
	}
	if m := menu(s, "/lib", tensileMenu); m.Status != "ok" || *m.FileCount != 1 {
		t.Errorf("fifo gfx dir: %+v", m)
	}
	if fp := nameFingerprint(s, "/lib", tensileDBSuffixes); fp == nil || *fp != filenamesHash([]string{"a.dat"}) {
		t.Errorf("fifo gfx dir fingerprint: %v", fp)
	}
}

// TestMenuUnlistableGfx: a gfx dir whose listing fails makes the menu
// partial with the arch-dir reason (names code-point sorted), after the
// unreadable-files reason; no combined hash; counts from what was listed. A
// gfx name whose stat fails is ignored, as before.
func TestMenuUnlistableGfx(t *testing.T) {
	const dir = "/opt/rocm/lib/rocblas/library"
	tensile := []string{"TensileLibrary_gfx942.dat", "gfx950/TensileLibrary_gfx950.dat", "GFX90A/k.co"}
	miopen := []string{"gfx942.kdb", "gfx950/x.kdb", "GFX90A/y.kdb"}
	for _, tc := range []struct {
		name   string
		kind   menuKind
		files  []string
		errs   map[string]syscall.Errno
		reason string // "": ok
		count  int
	}{
		{"listable", tensileMenu, tensile, nil, "", 3},
		{"gfx950 and GFX90A unlistable", tensileMenu, tensile, map[string]syscall.Errno{"open " + dir + "/gfx950": syscall.EACCES, "open " + dir + "/GFX90A": syscall.EIO},
			"Tensile library arch dir(s) not listable, so their kernels are absent from this catalog: GFX90A, gfx950", 1},
		{"with an unreadable file too", miopenMenu, miopen, map[string]syscall.Errno{"open " + dir + "/gfx950": syscall.EACCES, "open " + dir + "/gfx942.kdb": syscall.EIO},
			"one or more MIOpen db files were unreadable; MIOpen db arch dir(s) not listable, so their kernels are absent from this catalog: gfx950", 2},
		{"gfx stat fails: ignored", tensileMenu, tensile, map[string]syscall.Errno{"stat " + dir + "/gfx950": syscall.EACCES}, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, n := range tc.files {
				testtree.Make(t, root, "opt/rocm/lib/rocblas/library/"+n)
			}
			s := testState(t, root)
			s.root.SetFaults(tc.errs)
			m := menu(s, dir, tc.kind)
			switch {
			case tc.reason == "" && (m.Status != "ok" || m.Reason != nil || m.CombinedContentHash == nil):
				t.Errorf("menu %+v, want ok", m)
			case tc.reason != "" && (m.Status != "partial" || m.Reason == nil || *m.Reason != tc.reason || m.CombinedContentHash != nil):
				t.Errorf("menu status %s reason %q hash %v, want partial %q", m.Status, golden.OrNull(m.Reason), m.CombinedContentHash, tc.reason)
			}
			if m.FileCount == nil || *m.FileCount != tc.count {
				t.Errorf("file_count %v, want %d", m.FileCount, tc.count)
			}
		})
	}
}
