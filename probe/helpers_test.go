package probe

import (
	"testing"
	"time"
)

// within fails the test when f has not returned after a generous bound:
// the readers it exercises must never block.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// resolvers are the two ways rootFS resolves under a root: openat2 (where
// the kernel has it) and the portable walk, forced by the option.
var resolvers = []struct {
	name     string
	portable bool
}{{"openat2", false}, {"walk", true}}
