package testtree

import (
	"bytes"
	"encoding/binary"
)

// LDCacheEntry is one library of an ld.so.cache image (the fields of
// internal/source's LDCacheEntry).
type LDCacheEntry struct {
	Name, Path string
	Flags      int32
	HWCap      uint64
}

// The layouts of glibc's dl-cache.h, as internal/source reads them.
const (
	ldCacheMagicOld  = "ld.so-1.7.0"
	ldCacheMagicNew  = "glibc-ld.so.cache1.1"
	ldCacheHeaderOld = 16
	ldCacheEntryOld  = 12
	ldCacheHeaderNew = 48
	ldCacheEntryNew  = 24
)

// LDCache builds an ld.so.cache image the way ldconfig lays it out:
// "new" alone, "old" alone, or old then new ("both", aligned to 8), in
// byte order bo.
func LDCache(format string, bo binary.ByteOrder, entries []LDCacheEntry) []byte {
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
