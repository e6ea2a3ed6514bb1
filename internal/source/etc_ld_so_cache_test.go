package source

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// ldCacheImage is testtree.LDCache of entries.
func ldCacheImage(format string, bo binary.ByteOrder, entries []LDCacheEntry) []byte {
	es := make([]testtree.LDCacheEntry, len(entries))
	for i, e := range entries {
		es[i] = testtree.LDCacheEntry(e)
	}
	return testtree.LDCache(format, bo, es)
}

func TestParseLDCache(t *testing.T) {
	entries := []LDCacheEntry{
		{Name: "libamdhip64.so.6", Path: "/opt/rocm-6.4.1/lib/libamdhip64.so.6", Flags: 0x0303},
		{Name: "libamdhip64.so.5", Path: "/lib/x86_64-linux-gnu/libamdhip64.so.5", Flags: 0x0303, HWCap: 0},
		{Name: "libc.so.6", Path: "/lib/i386-linux-gnu/libc.so.6", Flags: 0x0003},
	}
	for _, tc := range []struct {
		format string
		bo     binary.ByteOrder
	}{{"new", binary.LittleEndian}, {"new", binary.BigEndian}, {"old", binary.LittleEndian}, {"both", binary.LittleEndian}} {
		got, err := ParseLDCache(ldCacheImage(tc.format, tc.bo, entries))
		if err != nil || !reflect.DeepEqual(got, entries) {
			t.Errorf("%s %v: %+v, %v", tc.format, tc.bo, got, err)
		}
	}
	good := ldCacheImage("new", binary.LittleEndian, entries)
	for name, b := range map[string][]byte{
		"empty":           nil,
		"other magic":     []byte("not a cache at all, really not"),
		"header only":     good[:20],
		"table cut":       good[:ldCacheHeaderNew+10],
		"strings cut":     good[:len(good)-3],
		"old header only": []byte(ldCacheMagicOld + "\x00\xff\xff\xff\xff"),
		"offset past end": func() []byte {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b[ldCacheHeaderNew+4:], 1<<31)
			return b
		}(),
		"huge count": func() []byte {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b[20:], 0xffffffff)
			return b
		}(),
	} {
		if got, err := ParseLDCache(b); err == nil {
			t.Errorf("%s: no error, %+v", name, got)
		}
	}
}

// TestParseLDCacheReal: this machine's /etc/ld.so.cache reads as ldconfig
// -p prints it (the same names and paths, in the same order).
func TestParseLDCacheReal(t *testing.T) {
	b, err := os.ReadFile("/etc/ld.so.cache")
	if err != nil {
		t.Skip("no /etc/ld.so.cache: ", err)
	}
	ldconfig, err := exec.LookPath("ldconfig")
	if err != nil {
		ldconfig = "/sbin/ldconfig"
	}
	out, err := exec.Command(ldconfig, "-p").Output()
	if err != nil {
		t.Skip("ldconfig -p: ", err)
	}
	var want []string
	for _, line := range strings.Split(string(out), "\n")[1:] {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), " (")
		_, path, ok2 := strings.Cut(rest, " => ")
		if ok && ok2 {
			want = append(want, name+" "+path)
		}
	}
	entries, err := ParseLDCache(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name+" "+e.Path)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed %d entries, ldconfig -p lists %d; first parsed %q", len(got), len(want), got[:min(3, len(got))])
	}
}

func FuzzParseLDCache(f *testing.F) {
	e := []LDCacheEntry{{Name: "libamdhip64.so.6", Path: "/opt/rocm/lib/libamdhip64.so.6", Flags: 0x0303}}
	for _, format := range []string{"new", "old", "both"} {
		f.Add(ldCacheImage(format, binary.LittleEndian, e))
	}
	f.Add(ldCacheImage("new", binary.BigEndian, e))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := ParseLDCache(b)
		if err != nil && entries != nil {
			t.Fatal("entries with an error")
		}
		for _, e := range entries {
			if strings.IndexByte(e.Name, 0) >= 0 || strings.IndexByte(e.Path, 0) >= 0 {
				t.Fatalf("a NUL inside %q / %q", e.Name, e.Path)
			}
		}
		libs := []string{"libamdhip64.so", "libc.so"}
		if got, want := LDCacheFind(b, libs), lookupEntries(entries, libs); !reflect.DeepEqual(got, want) {
			t.Fatalf("LDCacheFind = %q, the parsed entries say %q", got, want)
		}
	})
}

// lookupEntries is LDCacheFind over parsed entries, written plainly: for
// each lib the first entry of this architecture named lib, else the first
// named lib.N….
func lookupEntries(entries []LDCacheEntry, libs []string) map[string]string {
	out := map[string]string{}
	for _, lib := range libs {
		soname := ""
		for _, e := range entries {
			if arch := LDCacheArch(); arch != -1 && e.Flags != arch {
				continue
			}
			if e.Name == lib {
				out[lib] = e.Path
				break
			}
			if soname == "" && strings.HasPrefix(e.Name, lib+".") {
				soname = e.Path
			}
		}
		if _, ok := out[lib]; !ok && soname != "" {
			out[lib] = soname
		}
	}
	return out
}

// TestLDCacheFind: the exact name wins over an earlier soname, another
// architecture's entry is passed over, the first of two wins, a library
// the cache lacks is absent, and a corrupt image answers nothing.
func TestLDCacheFind(t *testing.T) {
	arch := LDCacheArch()
	if arch == -1 {
		t.Skip("no ld.so.cache architecture flags known for this GOARCH")
	}
	entries := []LDCacheEntry{
		{Name: "libamdhip64.so.6", Path: "/opt/rocm/lib/libamdhip64.so.6", Flags: arch},
		{Name: "libamdhip64.so", Path: "/opt/rocm/lib/libamdhip64.so", Flags: arch},
		{Name: "librocblas.so", Path: "/other/arch/librocblas.so", Flags: arch ^ 0x0100},
		{Name: "librocblas.so.4", Path: "/opt/rocm/lib/librocblas.so.4", Flags: arch},
		{Name: "librocblas.so.3", Path: "/old/librocblas.so.3", Flags: arch},
		{Name: "libhipblaslt.so-not", Path: "/x", Flags: arch},
	}
	libs := []string{"libamdhip64.so", "librocblas.so", "libhipblaslt.so"}
	want := map[string]string{"libamdhip64.so": "/opt/rocm/lib/libamdhip64.so", "librocblas.so": "/opt/rocm/lib/librocblas.so.4"}
	for _, format := range []string{"new", "old", "both"} {
		b := ldCacheImage(format, binary.LittleEndian, entries)
		if got := LDCacheFind(b, libs); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", format, got, want)
		}
		// (In "both" the old table's strings come last, and the new
		// table the loader reads is whole.)
		if got := LDCacheFind(b[:len(b)-3], libs); len(got) != 0 && format != "both" {
			t.Errorf("%s cut short: %q, want nothing", format, got)
		}
	}
}

func TestLDCacheRead(t *testing.T) {
	if LDCacheArch() == -1 {
		t.Skip("no ld.so.cache architecture flags known for this GOARCH")
	}
	root := t.TempDir()
	img := ldCacheImage("new", binary.LittleEndian, []LDCacheEntry{{Name: "libamdhip64.so.6", Path: "/opt/rocm/lib/libamdhip64.so.6", Flags: LDCacheArch()}})
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/ld.so.cache"), img, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := NewFS(machine.NewFS(root, "/", false)).LDCache([]string{"libamdhip64.so", "librocblas.so"})
	if err != nil || !reflect.DeepEqual(got, map[string]string{"libamdhip64.so": "/opt/rocm/lib/libamdhip64.so.6"}) {
		t.Errorf("LDCache = %v, %v", got, err)
	}
	got, err = NewFS(machine.NewFS(t.TempDir(), "/", false)).LDCache([]string{"libamdhip64.so"})
	if got != nil || !errors.Is(err, ErrRead) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no cache: %v, %v; want ErrRead over ErrNotExist", got, err)
	}
	if _, err := ParseLDCache([]byte("not a cache")); !errors.Is(err, ErrParse) {
		t.Errorf("ParseLDCache of garbage = %v, want ErrParse", err)
	}
}
