package source

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
)

// CMakeEntry is one NAME:TYPE=VALUE entry of a CMakeCache.txt.
type CMakeEntry struct {
	Type  string // the cache entry type, e.g. BOOL or STRING
	Value string // the value verbatim
}

// CMakeCacheLimits says which entries a pass over a CMakeCache.txt keeps
// and how much of them.
type CMakeCacheLimits struct {
	Keep       func(name string) bool // the names kept; others are skipped silently
	MaxEntries int                    // distinct names kept
	MaxBytes   int                    // bytes of names, types and values kept, in all
	MaxLine    int                    // the longest line held
}

// CMakeCache is one streamed pass over a CMakeCache.txt.
type CMakeCache struct {
	Entries map[string]CMakeEntry // later duplicates overwrite
	Bytes   int                   // of the names, types and values in Entries
	Dropped int                   // kept names the limits dropped
}

var cmakeLineRe = lazyre.New(`^([A-Z_][A-Z0-9_]*):([A-Z_]+)=(.*)$`)

// CMakeCache streams the CMakeCache.txt at p (a regular file, opened
// non-blocking: machine.FS.OpenRegular); an open or read error is
// ErrRead over the *fs.PathError of p.
//
// Source: <source_path>/build/CMakeCache.txt.
func (fs FS) CMakeCache(p string, lim CMakeCacheLimits) (*CMakeCache, error) {
	f, _, err := fs.m.OpenRegular(p)
	if err != nil {
		return nil, readErr(p, err)
	}
	defer f.Close()
	c, err := ParseCMakeCache(f, lim)
	if err != nil {
		return nil, readErr(p, pathErr(p, err))
	}
	return c, nil
}

func pathErr(p string, err error) error {
	return &fs.PathError{Op: "read", Path: p, Err: machine.UnwrapErrno(err)}
}

// ParseCMakeCache keeps the NAME:TYPE=VALUE entries of a CMakeCache.txt
// that lim.Keep accepts (Python splitlines; empty, // and # lines
// skipped; later duplicates overwrite), within lim. It streams: r is split
// at the ASCII line breaks of Python's splitlines as it is read (a
// decoding error never spans an ASCII byte, so decoding line by line is
// decoding the whole), each line decoded with U+FFFD replacement and split
// again at U+0085, U+2028 and U+2029. A line longer than lim.MaxLine is
// not held: its head decides whether it was a kept entry (then counted as
// dropped) and the rest is skipped as it is read. A read error returns
// what was kept before it.
func ParseCMakeCache(r io.Reader, lim CMakeCacheLimits) (*CMakeCache, error) {
	c := &CMakeCache{Entries: map[string]CMakeEntry{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	long := false
	end := func() {
		if long {
			// The head of an over-long line: a kept entry whose value
			// was too long to hold is dropped.
			if sm := cmakeLineRe().FindStringSubmatch(pyfmt.Strip(pyfmt.DecodeReplace(line))); sm != nil && lim.Keep(sm[1]) {
				c.Dropped++
			}
		} else {
			for _, l := range pyfmt.Splitlines(pyfmt.DecodeReplace(line)) {
				c.add(l, lim)
			}
		}
		line, long = line[:0], false
	}
	for {
		chunk, err := br.ReadSlice('\n')
		for len(chunk) > 0 {
			i := bytes.IndexAny(chunk, "\n\r\v\f\x1c\x1d\x1e")
			part := chunk
			if i >= 0 {
				part = chunk[:i]
			}
			if room := lim.MaxLine - len(line); len(part) > room {
				part, long = part[:max(room, 0)], true
			}
			line = append(line, part...)
			if i < 0 {
				break
			}
			end()
			chunk = chunk[i+1:]
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(line) > 0 || long {
				end()
			}
			return c, nil
		}
		if err != nil {
			return c, err
		}
	}
}

// add applies one line (already split as Python's splitlines would).
func (c *CMakeCache) add(line string, lim CMakeCacheLimits) {
	line = pyfmt.Strip(line)
	if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
		return
	}
	sm := cmakeLineRe().FindStringSubmatch(line)
	if sm == nil || !lim.Keep(sm[1]) {
		return
	}
	name, e := sm[1], CMakeEntry{Type: sm[2], Value: sm[3]}
	size := len(name) + len(e.Type) + len(e.Value)
	old, seen := c.Entries[name]
	if seen {
		size -= len(name) + len(old.Type) + len(old.Value)
	}
	if (!seen && len(c.Entries) >= lim.MaxEntries) || c.Bytes+size > lim.MaxBytes {
		c.Dropped++ // an earlier value of the same name stays
		return
	}
	c.Entries[name] = e
	c.Bytes += size
}
