package testtree

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestLDCache: each layout's magic and entry count where glibc's
// dl-cache.h puts them, the new table's byte order marked, and in "both"
// the new table after the old one at an 8-byte boundary; every string
// at the offset its entry gives.
func TestLDCache(t *testing.T) {
	entries := []LDCacheEntry{{Name: "libamdhip64.so.6", Path: "/opt/rocm/lib/libamdhip64.so.6", Flags: 0x303}, {Name: "libc.so.6", Path: "/lib/libc.so.6", Flags: 0x303}}
	str := func(b []byte, off uint32) string {
		if i := bytes.IndexByte(b[off:], 0); i >= 0 {
			return string(b[off : int(off)+i])
		}
		return ""
	}
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		b := LDCache("new", bo, entries)
		if !bytes.HasPrefix(b, []byte(ldCacheMagicNew)) || bo.Uint32(b[20:]) != 2 || b[28] != map[bool]byte{true: 3, false: 2}[bo == binary.BigEndian] {
			t.Errorf("new %v: header %q", bo, b[:ldCacheHeaderNew])
		}
		e := b[ldCacheHeaderNew+ldCacheEntryNew:]
		if got := str(b, bo.Uint32(e[4:])) + " " + str(b, bo.Uint32(e[8:])); got != "libc.so.6 /lib/libc.so.6" {
			t.Errorf("new %v: entry 1 %q", bo, got)
		}
	}
	old := LDCache("old", binary.LittleEndian, entries)
	if !bytes.HasPrefix(old, []byte(ldCacheMagicOld)) || binary.LittleEndian.Uint32(old[12:]) != 2 {
		t.Errorf("old: header %q", old[:ldCacheHeaderOld])
	}
	strs := old[ldCacheHeaderOld+2*ldCacheEntryOld:]
	if got := str(strs, binary.LittleEndian.Uint32(old[ldCacheHeaderOld+4:])); got != "libamdhip64.so.6" {
		t.Errorf("old: entry 0 %q", got)
	}
	both := LDCache("both", binary.LittleEndian, entries)
	at := bytes.Index(both, []byte(ldCacheMagicNew))
	if !bytes.HasPrefix(both, []byte(ldCacheMagicOld)) || at < ldCacheHeaderOld+2*ldCacheEntryOld || at%8 != 0 {
		t.Errorf("both: the new table at %d", at)
	}
}
