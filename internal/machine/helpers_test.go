package machine

import (
	"os"
	"path/filepath"
	"testing"
)

// mkfiles creates files (content = name) and links ("name -> target") under root.
func mkfiles(t *testing.T, root string, specs ...string) {
	t.Helper()
	for _, s := range specs {
		name, target, isLink := cutArrow(s)
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case isLink:
			err = os.Symlink(target, p)
		case name[len(name)-1] == '/':
			err = os.MkdirAll(p, 0o755)
		default:
			err = os.WriteFile(p, []byte(name), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func cutArrow(s string) (string, string, bool) {
	for i := 0; i+4 <= len(s); i++ {
		if s[i:i+4] == " -> " {
			return s[:i], s[i+4:], true
		}
	}
	return s, "", false
}

// ptrV is *p, or "null" for nil.
func ptrV(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}
