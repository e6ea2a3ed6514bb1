package source

import (
	"testing"

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
	return NewFS(machine.NewFS(testtree.Archive(t, archive), "/", false))
}
