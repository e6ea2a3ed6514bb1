package source

import (
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

func strp(s string) *string { return &s }

// derefOr is *p, or def for nil.
func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// fakeFS expands a fake machine root archive (internal/fakeroot's format)
// into a temporary directory and reads it.
func fakeFS(t *testing.T, archive string) FS {
	t.Helper()
	a, err := fakeroot.Parse([]byte(archive))
	if err != nil {
		t.Fatal(err)
	}
	dir := testtree.TempDir(t)
	if err := a.Expand(dir); err != nil {
		t.Fatal(err)
	}
	return NewFS(machine.NewFS(dir, "/", false))
}
