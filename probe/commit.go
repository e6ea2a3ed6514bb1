package probe

import (
	"strings"

	"aorta-probe/internal/pyfmt"
)

// extractCommit is the Python probe's extract_commit
// (docs/python.md#commit-extraction): the hex of the leftmost
// "[+.](digits.)?git<7-40 hex>" that ends at a word boundary, else of the
// same with "g" instead of "git", lower-cased; nil when neither occurs.
// Python's regex with \b and no look-ahead, written out by hand.
func extractCommit(v string) *string {
	if v == "" {
		return nil
	}
	for _, tag := range []string{"git", "g"} {
		for i := 0; i < len(v); i++ {
			if v[i] != '+' && v[i] != '.' {
				continue
			}
			if h, ok := commitAfter(v, i+1, tag); ok {
				h = strings.ToLower(h)
				return &h
			}
		}
	}
	return nil
}

// commitAfter matches "(digits.)?TAG hex{7,40}\b" at v[j:], trying the
// optional digits group first as the regex engine does.
func commitAfter(v string, j int, tag string) (string, bool) {
	k := j
	for k < len(v) && v[k] >= '0' && v[k] <= '9' {
		k++
	}
	if k > j && k < len(v) && v[k] == '.' {
		if h, ok := tagHex(v, k+1, tag); ok {
			return h, true
		}
	}
	return tagHex(v, j, tag)
}

func tagHex(v string, j int, tag string) (string, bool) {
	if len(v)-j < len(tag) || !strings.EqualFold(v[j:j+len(tag)], tag) {
		return "", false
	}
	j += len(tag)
	k := j
	for k < len(v) && isHex(v[k]) {
		k++
	}
	// A shorter run would end between two word characters: only the
	// maximal run can meet the boundary.
	if n := k - j; n < 7 || n > 40 || pyfmt.IsWordAt(v, k) {
		return "", false
	}
	return v[j:k], true
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// isHexString reports whether s is 7 to 40 hex digits.
func isHexString(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// commitFromAttr is extract_commit's attr-value coercion
// (docs/python.md#commit-extraction): non-string or blank → nil;
// extractCommit if it finds one; else a whole 7–40 hex string, lower-cased;
// else nil ("unknown", "dirty", tags).
func commitFromAttr(v *string) *string {
	if v == nil {
		return nil
	}
	s := pyfmt.Strip(*v)
	if s == "" {
		return nil
	}
	if c := extractCommit(s); c != nil {
		return c
	}
	if isHexString(s, 7, 40) {
		s = strings.ToLower(s)
		return &s
	}
	return nil
}

// packageCommit is triton.commit and fbgemm.commit
// (docs/python.md#commit-extraction): the commit in the version string, else
// the first usable of __git_version__, git_version, __commit__, __sha__ and
// version.git_version as the helper read them from the imported module. Never
// a reason.
func packageCommit(version *string, attrs []*string) *string {
	if version != nil {
		if c := extractCommit(*version); c != nil {
			return c
		}
	}
	for _, a := range attrs {
		if c := commitFromAttr(a); c != nil {
			return c
		}
	}
	return nil
}
