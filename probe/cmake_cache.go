package probe

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// cmakeAllowPrefixes are the CMakeCache entry name prefixes kept in
// pytorch_build.cmake_cache (docs/python.md); everything else stays out.
var cmakeAllowPrefixes = []string{
	"USE_", "CK_", "AITER_", "FLASH_", "HIPBLAS", "DISABLE_", "AOTRITON", "ROCM_",
	"HIP_PLATFORM", "HIP_RUNTIME", "HIP_COMPILER", "HIP_VERSION", "PYTORCH_ROCM_ARCH",
	"TORCH_BUILD_VERSION", "BUILD_TYPE", "CMAKE_BUILD_TYPE",
}

var cmakeLineRe = lazyre.New(`^([A-Z_][A-Z0-9_]*):([A-Z_]+)=(.*)$`)

// Caps on what CMakeCache.txt can put into the document (the Python probe
// has none: a 64 MB cache of allowlisted entries made a 265 MB document).
// A real PyTorch cache has a few hundred allowlisted entries of short
// values; past the caps entries are dropped, with one reason saying how
// many (docs/python.md).
const (
	cmakeMaxEntries = 1024    // distinct names kept
	cmakeMaxBytes   = 1 << 20 // bytes of names and values kept, in all
	cmakeMaxLine    = 64 << 10
)

// cmakeCache is the parse of one CMakeCache.txt: the entries kept and how
// many allowlisted entries the caps dropped.
type cmakeCache struct {
	entries map[string]schema.CMakeCacheEntry
	bytes   int
	dropped int
}

// parseCMakeCache keeps the allowlisted NAME:TYPE=VALUE entries of a
// CMakeCache.txt text (Python splitlines; empty, // and # lines skipped;
// later duplicates overwrite), sorted by NAME.
func parseCMakeCache(text string) pyjson.Map[schema.CMakeCacheEntry] {
	c, _ := scanCMakeCache(strings.NewReader(text))
	return pyjson.Sorted(c.entries)
}

// scanCMakeCache streams a CMakeCache.txt: it is split at the ASCII line
// breaks of Python's splitlines as it is read (a decoding error never
// spans an ASCII byte, so decoding line by line is decoding the whole),
// each line decoded with U+FFFD replacement and split again at U+0085,
// U+2028 and U+2029. A line longer than cmakeMaxLine is not held: its
// head decides whether it was an allowlisted entry (then counted as
// dropped) and the rest is skipped as it is read.
func scanCMakeCache(r io.Reader) (*cmakeCache, error) {
	c := &cmakeCache{entries: map[string]schema.CMakeCacheEntry{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	long := false
	end := func() {
		if long {
			// The head of an over-long line: an allowlisted entry
			// whose value was too long to keep is dropped.
			if sm := cmakeLineRe().FindStringSubmatch(pyfmt.Strip(pyfmt.DecodeReplace(line))); sm != nil && allowlisted(sm[1]) {
				c.dropped++
			}
		} else {
			for _, l := range pyfmt.Splitlines(pyfmt.DecodeReplace(line)) {
				c.add(l)
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
			if room := cmakeMaxLine - len(line); len(part) > room {
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
func (c *cmakeCache) add(line string) {
	line = pyfmt.Strip(line)
	if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
		return
	}
	sm := cmakeLineRe().FindStringSubmatch(line)
	if sm == nil || !allowlisted(sm[1]) {
		return
	}
	name, e := sm[1], schema.CMakeCacheEntry{Type: sm[2], Value: sm[3]}
	size := len(name) + len(e.Type) + len(e.Value)
	old, seen := c.entries[name]
	if seen {
		size -= len(name) + len(old.Type) + len(old.Value)
	}
	if (!seen && len(c.entries) >= cmakeMaxEntries) || c.bytes+size > cmakeMaxBytes {
		c.dropped++ // an earlier value of the same name stays
		return
	}
	c.entries[name] = e
	c.bytes += size
}

func allowlisted(name string) bool {
	for _, p := range cmakeAllowPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// collectCMakeCache is pytorch_build.cmake_cache. Source:
// <source_path>/build/CMakeCache.txt of a source or editable install,
// streamed (scanCMakeCache), at most the caps above kept.
// Scope: filesystem. Missing file: the default, silently.
func collectCMakeCache(s *state, kind string, src *string) schema.CMakeCache {
	cc, p, ok := readBuildFile(s, kind, src, "CMakeCache.txt", "cmake_cache", readCMakeCache)
	if !ok {
		return schema.CMakeCache{}
	}
	c := schema.CMakeCache{SourceFile: &p, Entries: pyjson.Sorted(cc.entries)}
	if cc.dropped > 0 {
		s.reason("pytorch_build.cmake_cache: dropped %d allowlisted entry(ies) of %s past the caps (%d entries, %d bytes of names, types and values, lines of %d bytes)",
			cc.dropped, p, cmakeMaxEntries, cmakeMaxBytes, cmakeMaxLine)
	}
	return c
}

// readCMakeCache opens p inside the root (machine.FS: a regular file,
// opened non-blocking) and streams it.
func readCMakeCache(root *machine.FS, p string) (*cmakeCache, error) {
	f, _, err := root.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cc, err := scanCMakeCache(f)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: machine.UnwrapErrno(err)}
	}
	return cc, nil
}

// readBuildFile reads <source_path>/build/name of a source or editable
// install (kind) with read: the input of pytorch_build.cmake_cache and
// pytorch_build.ninja_hipcc (field). ok is false when it is not a regular
// file (the block keeps its default, silently) or the read failed (one
// reason).
func readBuildFile[T any](s *state, kind string, src *string, name, field string, read func(*machine.FS, string) (T, error)) (v T, p string, ok bool) {
	if (kind != "source" && kind != "editable") || src == nil {
		return v, "", false
	}
	p = *src + "/build/" + name
	if !s.root.IsRegular(p) {
		return v, "", false
	}
	v, err := read(s.root, p)
	if err != nil {
		s.reason("pytorch_build.%s: read failed for %s (%s)", field, p, pyfmt.ExcType(err))
		return v, "", false
	}
	return v, p, true
}
