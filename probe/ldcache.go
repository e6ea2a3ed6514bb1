package probe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
)

// ldCacheEntry is one library of /etc/ld.so.cache: the name the loader
// looks up (a soname such as libamdhip64.so.5) and the file it opens.
type ldCacheEntry struct {
	Name, Path string
	// Flags are the entry's type and architecture bits (FLAG_ELF_LIBC6 |
	// FLAG_X8664_LIB64 = 0x0303 on x86-64).
	Flags int32
	// HWCap is the new format's hwcap word (a glibc-hwcaps subdirectory
	// entry has it set); 0 in the old format.
	HWCap uint64
}

// The two layouts ldconfig writes (glibc's dl-cache.h): the old
// "ld.so-1.7.0" table of 12-byte entries whose strings follow the table,
// and the new "glibc-ld.so.cache1.1" table of 24-byte entries whose string
// offsets count from the new header. Since glibc 2.32 ldconfig writes the
// new format alone; before, the new table followed the old one, aligned to
// 8 bytes.
const (
	ldCacheMagicOld  = "ld.so-1.7.0"
	ldCacheMagicNew  = "glibc-ld.so.cache1.1"
	ldCacheHeaderOld = 16 // magic[11], pad, nlibs
	ldCacheEntryOld  = 12 // flags, key, value
	ldCacheHeaderNew = 48 // magic+version[20], nlibs, len_strings, flags, pad[3], extension_offset, unused[3]
	ldCacheEntryNew  = 24 // flags, key, value, osversion, hwcap
)

// ldCacheMax bounds the ld.so.cache read: real caches are tens to a few
// hundred KiB.
const ldCacheMax = 16 << 20

var errLDCache = errors.New("not an ld.so.cache")

// parseLDCache reads the entries of an ld.so.cache image in file order
// (ldconfig sorts them so that the first match is the loader's choice).
// The new table wins when there is one. Every offset is checked: a
// corrupt or truncated cache is an error, never a panic. Strings are
// NUL-terminated; an entry whose name or path runs off the end is an
// error too.
func parseLDCache(b []byte) ([]ldCacheEntry, error) {
	if bytes.HasPrefix(b, []byte(ldCacheMagicNew)) {
		return parseLDCacheNew(b)
	}
	if !bytes.HasPrefix(b, []byte(ldCacheMagicOld)) || len(b) < ldCacheHeaderOld {
		return nil, errLDCache
	}
	le := binary.LittleEndian
	n := uint64(le.Uint32(b[12:16]))
	end := ldCacheHeaderOld + n*ldCacheEntryOld
	if end > uint64(len(b)) {
		return nil, errLDCache
	}
	// A new table hidden after the old one (glibc 2.x before 2.32).
	if off := (end + 7) &^ 7; off < uint64(len(b)) && bytes.HasPrefix(b[off:], []byte(ldCacheMagicNew)) {
		return parseLDCacheNew(b[off:])
	}
	strs := b[end:]
	out := make([]ldCacheEntry, 0, n)
	for i := uint64(0); i < n; i++ {
		e := b[ldCacheHeaderOld+i*ldCacheEntryOld:]
		name, ok1 := cString(strs, le.Uint32(e[4:8]))
		path, ok2 := cString(strs, le.Uint32(e[8:12]))
		if !ok1 || !ok2 {
			return nil, errLDCache
		}
		out = append(out, ldCacheEntry{Name: name, Path: path, Flags: int32(le.Uint32(e[0:4]))})
	}
	return out, nil
}

// parseLDCacheNew reads a new-format table starting at b[0].
func parseLDCacheNew(b []byte) ([]ldCacheEntry, error) {
	if len(b) < ldCacheHeaderNew {
		return nil, errLDCache
	}
	var bo binary.ByteOrder = binary.LittleEndian
	// The header's flags say the byte order (cache_file_new_flags_endian_*:
	// 2 little, 3 big; 0 from an older ldconfig means the host's).
	if b[28]&3 == 3 {
		bo = binary.BigEndian
	}
	n := uint64(bo.Uint32(b[20:24]))
	if ldCacheHeaderNew+n*ldCacheEntryNew > uint64(len(b)) {
		return nil, errLDCache
	}
	out := make([]ldCacheEntry, 0, n)
	for i := uint64(0); i < n; i++ {
		e := b[ldCacheHeaderNew+i*ldCacheEntryNew:]
		name, ok1 := cString(b, bo.Uint32(e[4:8]))
		path, ok2 := cString(b, bo.Uint32(e[8:12]))
		if !ok1 || !ok2 {
			return nil, errLDCache
		}
		out = append(out, ldCacheEntry{Name: name, Path: path, Flags: int32(bo.Uint32(e[0:4])), HWCap: bo.Uint64(e[16:24])})
	}
	return out, nil
}

// cString is the NUL-terminated string at off in b.
func cString(b []byte, off uint32) (string, bool) {
	if uint64(off) >= uint64(len(b)) {
		return "", false
	}
	s := b[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return "", false
	}
	return string(s[:i]), true
}

// ldCacheArch is the entry flags the loader of this architecture accepts
// (glibc's _DL_CACHE_DEFAULT_ID: FLAG_ELF_LIBC6 plus the architecture's
// required bits), or -1 when any entry is taken.
func ldCacheArch() int32 {
	switch runtime.GOARCH {
	case "amd64":
		return 0x0303
	case "arm64":
		return 0x0a03
	}
	return -1
}
