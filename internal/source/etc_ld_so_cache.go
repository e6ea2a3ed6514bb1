package source

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
)

// LDCacheEntry is one library of /etc/ld.so.cache: the name the loader
// looks up (a soname such as libamdhip64.so.5) and the file it opens.
type LDCacheEntry struct {
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

// LDCacheMax bounds the ld.so.cache read: real caches are tens to a few
// hundred KiB.
const LDCacheMax = 16 << 20

// errLDCache is the error of an image that is not an ld.so.cache, or a
// corrupt or truncated one.
var errLDCache = &Error{Kind: ErrParse, Path: "ld.so.cache", Err: errors.New("not an ld.so.cache")}

// LDCache is, for each of libs, the path the loader of this architecture
// takes from the root's /etc/ld.so.cache (LDCacheFind); a missing or
// larger file is ErrRead.
//
// Source: /etc/ld.so.cache.
func (fs FS) LDCache(libs []string) (map[string]string, error) {
	const p = "/etc/ld.so.cache"
	b, err := fs.m.ReadFile(p, LDCacheMax)
	if err != nil {
		return nil, readErr(p, err)
	}
	return LDCacheFind(b, libs), nil
}

// ParseLDCache reads the entries of an ld.so.cache image in file order
// (ldconfig sorts them so that the first match is the loader's choice);
// see walkLDCache.
func ParseLDCache(b []byte) ([]LDCacheEntry, error) {
	var out []LDCacheEntry
	err := walkLDCache(b, func(name, path []byte, flags int32, hwcap uint64) bool {
		out = append(out, LDCacheEntry{Name: string(name), Path: string(path), Flags: flags, HWCap: hwcap})
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// LDCacheFind is, for each of libs, the path the loader of this
// architecture takes from the ld.so.cache image b (LDCacheArch): the first
// entry named lib (its path even when empty), else the first named lib.N…
// with a path; libs without one, and all of them when b is not a cache,
// are absent. It copies only what it returns: a cache lists a thousand
// libraries, the probe asks for three.
func LDCacheFind(b []byte, libs []string) map[string]string {
	arch := LDCacheArch()
	exact := map[string]string{}
	soname := map[string]string{}
	walkLDCache(b, func(name, path []byte, flags int32, _ uint64) bool {
		if arch != -1 && flags != arch {
			return true
		}
		for _, lib := range libs {
			switch {
			case string(name) == lib:
				if _, ok := exact[lib]; !ok {
					exact[lib] = string(path)
				}
			case len(name) > len(lib) && name[len(lib)] == '.' && string(name[:len(lib)]) == lib && len(path) > 0:
				if _, ok := soname[lib]; !ok {
					soname[lib] = string(path)
				}
			}
		}
		return true
	})
	for lib, p := range soname {
		if _, ok := exact[lib]; !ok {
			exact[lib] = p
		}
	}
	return exact
}

// walkLDCache calls fn with each entry of an ld.so.cache image in file
// order, its name and path slices of b, until fn returns false. The new
// table wins when there is one. Every offset is checked before fn sees
// the first entry: a corrupt or truncated cache is an error (and no call),
// never a panic. Strings are NUL-terminated; an entry whose name or path
// runs off the end is an error too.
func walkLDCache(b []byte, fn func(name, path []byte, flags int32, hwcap uint64) bool) error {
	t, err := ldCacheTableOf(b)
	if err != nil {
		return err
	}
	for i := range t.n { // every entry valid first
		if _, _, ok := t.entry(i); !ok {
			return errLDCache
		}
	}
	for i := range t.n {
		name, path, _ := t.entry(i)
		if !fn(name, path, t.flags(i), t.hwcap(i)) {
			break
		}
	}
	return nil
}

// ldCacheTable is one table of an image: n entries of size bytes from
// entries, string offsets counted from strs.
type ldCacheTable struct {
	bo            binary.ByteOrder
	entries, strs []byte
	n, size       uint64
	newFormat     bool
}

// ldCacheTableOf finds the table of image b that the loader reads.
func ldCacheTableOf(b []byte) (ldCacheTable, error) {
	if bytes.HasPrefix(b, []byte(ldCacheMagicNew)) {
		return ldCacheTableNew(b)
	}
	if !bytes.HasPrefix(b, []byte(ldCacheMagicOld)) || len(b) < ldCacheHeaderOld {
		return ldCacheTable{}, errLDCache
	}
	le := binary.LittleEndian
	n := uint64(le.Uint32(b[12:16]))
	end := ldCacheHeaderOld + n*ldCacheEntryOld
	if end > uint64(len(b)) {
		return ldCacheTable{}, errLDCache
	}
	// A new table hidden after the old one (glibc 2.x before 2.32).
	if off := (end + 7) &^ 7; off < uint64(len(b)) && bytes.HasPrefix(b[off:], []byte(ldCacheMagicNew)) {
		return ldCacheTableNew(b[off:])
	}
	return ldCacheTable{bo: le, entries: b[ldCacheHeaderOld:end], strs: b[end:], n: n, size: ldCacheEntryOld}, nil
}

// ldCacheTableNew is the new-format table starting at b[0].
func ldCacheTableNew(b []byte) (ldCacheTable, error) {
	if len(b) < ldCacheHeaderNew {
		return ldCacheTable{}, errLDCache
	}
	var bo binary.ByteOrder = binary.LittleEndian
	// The header's flags say the byte order (cache_file_new_flags_endian_*:
	// 2 little, 3 big; 0 from an older ldconfig means the host's).
	if b[28]&3 == 3 {
		bo = binary.BigEndian
	}
	n := uint64(bo.Uint32(b[20:24]))
	end := ldCacheHeaderNew + n*ldCacheEntryNew
	if end > uint64(len(b)) {
		return ldCacheTable{}, errLDCache
	}
	return ldCacheTable{bo: bo, entries: b[ldCacheHeaderNew:end], strs: b, n: n, size: ldCacheEntryNew, newFormat: true}, nil
}

// entry is entry i's name and path; false when either runs off the image.
func (t ldCacheTable) entry(i uint64) (name, path []byte, ok bool) {
	e := t.entries[i*t.size:]
	name, ok1 := cString(t.strs, t.bo.Uint32(e[4:8]))
	path, ok2 := cString(t.strs, t.bo.Uint32(e[8:12]))
	return name, path, ok1 && ok2
}

func (t ldCacheTable) flags(i uint64) int32 { return int32(t.bo.Uint32(t.entries[i*t.size:])) }

// hwcap is the new format's hwcap word; 0 in the old format.
func (t ldCacheTable) hwcap(i uint64) uint64 {
	if !t.newFormat {
		return 0
	}
	return t.bo.Uint64(t.entries[i*t.size+16:])
}

// cString is the NUL-terminated string at off in b.
func cString(b []byte, off uint32) ([]byte, bool) {
	if uint64(off) >= uint64(len(b)) {
		return nil, false
	}
	s := b[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return nil, false
	}
	return s[:i], true
}

// LDCacheArch is the entry flags the loader of this architecture accepts
// (glibc's _DL_CACHE_DEFAULT_ID: FLAG_ELF_LIBC6 plus the architecture's
// required bits), or -1 when any entry is taken.
func LDCacheArch() int32 {
	switch runtime.GOARCH {
	case "amd64":
		return 0x0303
	case "arm64":
		return 0x0a03
	}
	return -1
}
