package probe

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// cmakeAllowPrefixes are the CMakeCache entry name prefixes kept in
// pytorch_build.cmake_cache (context.md §12.8); everything else stays out.
var cmakeAllowPrefixes = []string{
	"USE_", "CK_", "AITER_", "FLASH_", "HIPBLAS", "DISABLE_", "AOTRITON", "ROCM_",
	"HIP_PLATFORM", "HIP_RUNTIME", "HIP_COMPILER", "HIP_VERSION", "PYTORCH_ROCM_ARCH",
	"TORCH_BUILD_VERSION", "BUILD_TYPE", "CMAKE_BUILD_TYPE",
}

var cmakeLineRe = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*):([A-Z_]+)=(.*)$`)

// parseCMakeCache keeps the allowlisted NAME:TYPE=VALUE entries of a
// CMakeCache.txt text (Python splitlines; empty, // and # lines skipped;
// later duplicates overwrite), sorted by NAME.
func parseCMakeCache(text string) schema.Map[schema.CMakeCacheEntry] {
	m := map[string]schema.CMakeCacheEntry{}
	for _, line := range pySplitlines(text) {
		line = pyStrip(line)
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
			continue
		}
		sm := cmakeLineRe.FindStringSubmatch(line)
		if sm == nil || !allowlisted(sm[1]) {
			continue
		}
		m[sm[1]] = schema.CMakeCacheEntry{Type: sm[2], Value: sm[3]}
	}
	return sortedMap(m)
}

func allowlisted(name string) bool {
	for _, p := range cmakeAllowPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// maxBuildFile bounds the build files read whole (CMakeCache.txt).
const maxBuildFile = 256 << 20

// collectCMakeCache is pytorch_build.cmake_cache. Source:
// <source_path>/build/CMakeCache.txt of a source or editable install.
// Scope: filesystem. Missing file: the default, silently.
func collectCMakeCache(s *state, kind string, src *string) schema.CMakeCache {
	var c schema.CMakeCache
	if (kind != "source" && kind != "editable") || src == nil {
		return c
	}
	p := *src + "/build/CMakeCache.txt"
	if !s.root.isRegular(p) {
		return c
	}
	b, err := s.root.readFile(p, maxBuildFile)
	if err != nil {
		s.reason("pytorch_build.cmake_cache: read failed for %s (%s)", p, pyfmt.ExcType(err))
		return c
	}
	c.SourceFile = &p
	c.Entries = parseCMakeCache(decodeReplace(b))
	return c
}

// decodeReplace decodes UTF-8 as Python's errors="replace" does: each
// undecodable sequence becomes one U+FFFD, where a sequence is what
// CPython's decoder reports as one error (utf8Check): a lone invalid byte,
// or the valid-so-far prefix of a multi-byte sequence cut short ("\xe2\x82("
// is one replacement and "(", not two).
func decodeReplace(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		var de *decodeError
		if !errors.As(utf8Check(b), &de) {
			sb.Write(b)
			break
		}
		sb.Write(b[:de.pos])
		sb.WriteRune(utf8.RuneError)
		b = b[de.end:]
	}
	return sb.String()
}
