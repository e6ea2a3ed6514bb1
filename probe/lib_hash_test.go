package probe

import (
	"context"
	"reflect"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// testState is a probe state over the host directory root, for tests of
// the file primitives without a whole collection.
func testState(t *testing.T, root string) *state {
	t.Helper()
	c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: root, Cwd: "/"}})
	c.rocm = func() rocmRoots { return rocmRoots{} }
	return &state{collector: c, name: "test"}
}

// finishBlock publishes v as the finished block of key, for a test that
// runs one probe whose code awaits another; the state then runs as the
// row named as (which must come below key in the table).
func finishBlock[T any](s *state, key blockKey[T], v T, as string) {
	sl := s.slots[string(key)]
	sl.value, sl.ok = v, true
	close(sl.done)
	s.name = as
}

func TestLibCandidates(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"classic chain", []string{"libfoo.so", "libfoo.so.1", "libfoo.so.1.2.70201", "libbar.so.1"},
			[]string{"libfoo.so.1.2.70201", "libfoo.so.1"}},
		{"numeric not string order", []string{"libfoo.so.5.9.0", "libfoo.so.5.10.0"},
			[]string{"libfoo.so.5.10.0", "libfoo.so.5.9.0"}},
		{"prefix sorts lower", []string{"libfoo.so.1.2", "libfoo.so.1.2.0"},
			[]string{"libfoo.so.1.2.0", "libfoo.so.1.2"}},
		{"tier 2 after tier 1, descending", []string{"libfoo.so.1.2.70201.bak", "libfoo.so.1", "libfoo.so.1.a", "libfoo.so.", "libfoo.so.1..2"},
			[]string{"libfoo.so.1", "libfoo.so.1.a", "libfoo.so.1.2.70201.bak", "libfoo.so.1..2", "libfoo.so."}},
		{"big integers", []string{"libfoo.so.99999999999999999999", "libfoo.so.100000000000000000000"},
			[]string{"libfoo.so.100000000000000000000", "libfoo.so.99999999999999999999"}},
		{"leading zeros tie by name", []string{"libfoo.so.1.02", "libfoo.so.1.2"},
			[]string{"libfoo.so.1.2", "libfoo.so.1.02"}},
		{"non-ASCII digits are tier 2", []string{"libfoo.so.\u0661", "libfoo.so.1"},
			[]string{"libfoo.so.1", "libfoo.so.\u0661"}},
		{"nothing", []string{"libfoo.so"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := libCandidates("libfoo.so", tc.names)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLibHash(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root,
		"lib/libfoo.so -> libfoo.so.1",
		"lib/libfoo.so.1 -> /lib/libfoo.so.1.2.3", // absolute: inside the root
		"lib/libfoo.so.1.2.3",
		"lib/libloop.so -> libloop.so",
		"lib/libloop.so.2",
		"lib/libdangle.so -> nowhere",
		"lib/libdir.so.1/",
		"lib/libdir.so.0",
	)
	s := testState(t, root)
	want, _ := s.sha256OfPath("/lib/libfoo.so.1.2.3")
	if got := libHash(s, "/lib", "libfoo.so"); got == nil || *got != want {
		t.Errorf("libfoo: %v, want %s", got, want)
	}
	if got := libHash(s, "/lib", "libloop.so"); got == nil {
		t.Error("libloop: the loop must be skipped, libloop.so.2 hashed")
	}
	if got := libHash(s, "/lib", "libdangle.so"); got != nil {
		t.Errorf("libdangle: %s, want null", *got)
	}
	if got, want := libHash(s, "/lib", "libdir.so"), "lib/libdir.so.0"; got == nil || *got != sha256Hex(want) {
		t.Errorf("libdir: a directory candidate must be skipped: %v", got)
	}
	if got := libHash(s, "/missing", "libfoo.so"); got != nil {
		t.Error("missing dir must give null")
	}
}
