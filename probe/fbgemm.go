package probe

import (
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// collectFBGEMM is the fbgemm block (docs/python.md). Source: the helper's
// `import fbgemm_gpu` (package_version, commit; a missing package is a
// documented absence) and torch.__config__.show() at the
// fbgemm.pytorch_use_fbgemm import site (the two flags: the whole config
// text contains -DUSE_FBGEMM / -DUSE_FBGEMM_GENAI as a whole define).
// Scope: process.
func collectFBGEMM(s *state) schema.FBGEMM {
	f := s.python()
	var b schema.FBGEMM
	p := f.FBGEMM
	switch {
	case !f.packageOutcome(outcomeOf(p), p != nil).imported(s, "fbgemm.package_version", "fbgemm_gpu", ""):
	case p.Version == nil:
		s.reason("fbgemm.package_version: fbgemm_gpu lacks __version__ attribute")
	default:
		b.PackageVersion = p.Version
	}
	if p != nil {
		b.Commit = packageCommit(b.PackageVersion, p.Attrs)
	}
	b.PytorchUseFBGEMM, b.PytorchUseFBGEMMGenAI = configDefines(s, "fbgemm.pytorch_use_fbgemm", "USE_FBGEMM", "USE_FBGEMM_GENAI")
	return b
}

// configDefines answers "does torch.__config__.show() contain -DNAME as a
// whole define" for two names, with torch taken at the given import site
// and that site's reason prefix (docs/python.md).
func configDefines(s *state, site, a, b string) (*bool, *bool) {
	t, o := s.python().torchAt(site)
	if !o.imported(s, site, "torch", "") {
		return nil, nil
	}
	switch t.ConfigShow.State {
	case "ok":
		text := t.ConfigShow.Text
		return schema.Bool(hasDefine(text, a)), schema.Bool(hasDefine(text, b))
	case "raised":
		s.reason("%s: torch.__config__.show() raised (%s)", site, t.ConfigShow.Exc)
	default:
		s.reason("%s: torch.__config__.show unavailable", site)
	}
	return nil, nil
}

// hasDefine reports whether text contains "-D"+name not followed by a
// letter, digit or underscore (Python's -DNAME(?![A-Za-z0-9_])).
func hasDefine(text, name string) bool {
	needle := "-D" + name
	for i := 0; ; {
		j := indexFrom(text, needle, i)
		if j < 0 {
			return false
		}
		k := j + len(needle)
		if k >= len(text) || !pyfmt.IsASCIIWord(text[k]) {
			return true
		}
		i = j + 1
	}
}

func indexFrom(s, sub string, i int) int {
	if i > len(s) {
		return -1
	}
	j := strings.Index(s[i:], sub)
	if j < 0 {
		return -1
	}
	return i + j
}
