package probe

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// ldCacheImage builds an ld.so.cache image the way ldconfig lays it out:
// new alone, old alone, or old then new (aligned to 8), in byte order bo.
func ldCacheImage(format string, bo binary.ByteOrder, entries []ldCacheEntry) []byte {
	newTable := func() []byte {
		var strs bytes.Buffer
		head := ldCacheHeaderNew + len(entries)*ldCacheEntryNew
		b := make([]byte, head)
		copy(b, ldCacheMagicNew)
		bo.PutUint32(b[20:], uint32(len(entries)))
		if bo == binary.BigEndian {
			b[28] = 3
		} else {
			b[28] = 2
		}
		for i, e := range entries {
			p := b[ldCacheHeaderNew+i*ldCacheEntryNew:]
			bo.PutUint32(p[0:], uint32(e.Flags))
			bo.PutUint32(p[4:], uint32(head+strs.Len()))
			strs.WriteString(e.Name + "\x00")
			bo.PutUint32(p[8:], uint32(head+strs.Len()))
			strs.WriteString(e.Path + "\x00")
			bo.PutUint64(p[16:], e.HWCap)
		}
		bo.PutUint32(b[24:], uint32(strs.Len()))
		return append(b, strs.Bytes()...)
	}
	oldTable := func(tail []byte) []byte {
		var strs bytes.Buffer
		b := make([]byte, ldCacheHeaderOld+len(entries)*ldCacheEntryOld)
		copy(b, ldCacheMagicOld)
		binary.LittleEndian.PutUint32(b[12:], uint32(len(entries)))
		if tail != nil {
			for len(b)%8 != 0 {
				b = append(b, 0)
			}
			strs.Write(tail) // offsets of the old strings count past it
		}
		for i, e := range entries {
			p := b[ldCacheHeaderOld+i*ldCacheEntryOld:]
			binary.LittleEndian.PutUint32(p[0:], uint32(e.Flags))
			binary.LittleEndian.PutUint32(p[4:], uint32(strs.Len()))
			strs.WriteString(e.Name + "\x00")
			binary.LittleEndian.PutUint32(p[8:], uint32(strs.Len()))
			strs.WriteString(e.Path + "\x00")
		}
		return append(b, strs.Bytes()...)
	}
	switch format {
	case "new":
		return newTable()
	case "old":
		return oldTable(nil)
	}
	return oldTable(newTable())
}

func TestParseLDCache(t *testing.T) {
	entries := []ldCacheEntry{
		{Name: "libamdhip64.so.6", Path: "/opt/rocm-6.4.1/lib/libamdhip64.so.6", Flags: 0x0303},
		{Name: "libamdhip64.so.5", Path: "/lib/x86_64-linux-gnu/libamdhip64.so.5", Flags: 0x0303, HWCap: 0},
		{Name: "libc.so.6", Path: "/lib/i386-linux-gnu/libc.so.6", Flags: 0x0003},
	}
	for _, tc := range []struct {
		format string
		bo     binary.ByteOrder
	}{{"new", binary.LittleEndian}, {"new", binary.BigEndian}, {"old", binary.LittleEndian}, {"both", binary.LittleEndian}} {
		got, err := parseLDCache(ldCacheImage(tc.format, tc.bo, entries))
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
		if got, err := parseLDCache(b); err == nil {
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
	entries, err := parseLDCache(b)
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
	e := []ldCacheEntry{{Name: "libamdhip64.so.6", Path: "/opt/rocm/lib/libamdhip64.so.6", Flags: 0x0303}}
	for _, format := range []string{"new", "old", "both"} {
		f.Add(ldCacheImage(format, binary.LittleEndian, e))
	}
	f.Add(ldCacheImage("new", binary.BigEndian, e))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := parseLDCache(b)
		if err != nil && entries != nil {
			t.Fatal("entries with an error")
		}
		for _, e := range entries {
			if strings.IndexByte(e.Name, 0) >= 0 || strings.IndexByte(e.Path, 0) >= 0 {
				t.Fatalf("a NUL inside %q / %q", e.Name, e.Path)
			}
		}
		libs := []string{"libamdhip64.so", "libc.so"}
		if got, want := ldCacheFind(b, libs), lookupEntries(entries, libs); !reflect.DeepEqual(got, want) {
			t.Fatalf("ldCacheFind = %q, the parsed entries say %q", got, want)
		}
	})
}

// lookupEntries is ldCacheFind over parsed entries, written plainly: for
// each lib the first entry of this architecture named lib, else the first
// named lib.N….
func lookupEntries(entries []ldCacheEntry, libs []string) map[string]string {
	out := map[string]string{}
	for _, lib := range libs {
		soname := ""
		for _, e := range entries {
			if arch := ldCacheArch(); arch != -1 && e.Flags != arch {
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
	arch := ldCacheArch()
	if arch == -1 {
		t.Skip("no ld.so.cache architecture flags known for this GOARCH")
	}
	entries := []ldCacheEntry{
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
		if got := ldCacheFind(b, libs); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", format, got, want)
		}
		// (In "both" the old table's strings come last, and the new
		// table the loader reads is whole.)
		if got := ldCacheFind(b[:len(b)-3], libs); len(got) != 0 && format != "both" {
			t.Errorf("%s cut short: %q, want nothing", format, got)
		}
	}
}
