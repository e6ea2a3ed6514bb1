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
	})
}
