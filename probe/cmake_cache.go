package probe

import (
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// cmakeAllowPrefixes are the CMakeCache entry name prefixes kept in
// pytorch_build.cmake_cache (docs/python.md); everything else stays out.
var cmakeAllowPrefixes = []string{
	"USE_", "CK_", "AITER_", "FLASH_", "HIPBLAS", "DISABLE_", "AOTRITON", "ROCM_",
	"HIP_PLATFORM", "HIP_RUNTIME", "HIP_COMPILER", "HIP_VERSION", "PYTORCH_ROCM_ARCH",
	"TORCH_BUILD_VERSION", "BUILD_TYPE", "CMAKE_BUILD_TYPE",
}

// Caps on what CMakeCache.txt can put into the document (the Python probe
// has none: a 64 MB cache of allowlisted entries made a 265 MB document).
// A real PyTorch cache has a few hundred allowlisted entries of short
// values; past the caps entries are dropped, with one reason saying how
// many (docs/python.md).
const (
	cmakeMaxEntries = 1024    // distinct names kept
	cmakeMaxBytes   = 1 << 20 // bytes of names, types and values kept, in all
	cmakeMaxLine    = 64 << 10
)

// cmakeLimits is what a pass over CMakeCache.txt keeps: the allowlisted
// names, within the caps.
var cmakeLimits = source.CMakeCacheLimits{Keep: allowlisted, MaxEntries: cmakeMaxEntries, MaxBytes: cmakeMaxBytes, MaxLine: cmakeMaxLine}

// parseCMakeCache keeps the allowlisted NAME:TYPE=VALUE entries of a
// CMakeCache.txt text (source.ParseCMakeCache), sorted by NAME.
func parseCMakeCache(text string) pyjson.Map[schema.CMakeCacheEntry] {
	c, _ := source.ParseCMakeCache(strings.NewReader(text), cmakeLimits)
	return cmakeEntries(c)
}

// cmakeEntries is the document's cmake_cache.entries: c's, sorted by NAME.
func cmakeEntries(c *source.CMakeCache) pyjson.Map[schema.CMakeCacheEntry] {
	m := make(map[string]schema.CMakeCacheEntry, len(c.Entries))
	for k, e := range c.Entries {
		m[k] = schema.CMakeCacheEntry(e)
	}
	return pyjson.Sorted(m)
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
// streamed (source.FS.CMakeCache), at most the caps above kept.
// Scope: filesystem. Missing file: the default, silently.
func collectCMakeCache(s *state, kind string, src *string) schema.CMakeCache {
	cc, p, ok := readBuildFile(s, kind, src, "CMakeCache.txt", "cmake_cache", readCMakeCache)
	if !ok {
		return schema.CMakeCache{}
	}
	c := schema.CMakeCache{SourceFile: &p, Entries: cmakeEntries(cc)}
	if cc.Dropped > 0 {
		s.reason("pytorch_build.cmake_cache: dropped %d allowlisted entry(ies) of %s past the caps (%d entries, %d bytes of names, types and values, lines of %d bytes)",
			cc.Dropped, p, cmakeMaxEntries, cmakeMaxBytes, cmakeMaxLine)
	}
	return c
}

// readCMakeCache streams the CMakeCache.txt at p inside the root; the
// error is the machine's, which the reason names.
func readCMakeCache(root *machine.FS, p string) (*source.CMakeCache, error) {
	c, err := source.NewFS(root).CMakeCache(p, cmakeLimits)
	return c, source.Cause(err)
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
