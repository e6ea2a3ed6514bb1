package source

import (
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNUMANodes: each node<N> with its CPU count, a memory-only node
// (HBM, CXL) with none, names that are no node skipped; a cpulist that is
// no CPU range list, a node without one and a missing directory are
// errors, never a guess.
func TestNUMANodes(t *testing.T) {
	f := fakeFS(t, `
-- sys/devices/system/node/node0/cpulist --
0-95,192-287
-- sys/devices/system/node/node1/cpulist --
96-191
-- sys/devices/system/node/node2/cpulist --

-- sys/devices/system/node/possible --
0-2
-- sys/devices/system/node/nodeX/cpulist --
7
`)
	ns, err := f.NUMANodes()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ns, func(a, b NUMANode) int { return a.ID - b.ID })
	if want := []NUMANode{{0, 192}, {1, 96}, {2, 0}}; !slices.Equal(ns, want) {
		t.Errorf("NUMANodes = %v, want %v", ns, want)
	}

	for name, archive := range map[string]string{
		"malformed cpulist": "-- sys/devices/system/node/node0/cpulist --\n0-\n",
		"no cpulist":        "-- sys/devices/system/node/node0/has_cpu --\n1\n",
	} {
		if ns, err := fakeFS(t, archive).NUMANodes(); err == nil {
			t.Errorf("%s: NUMANodes = %v, want an error", name, ns)
		}
	}
	if _, err := fakeFS(t, "-- etc/hostname --\nx\n").NUMANodes(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no /sys/devices/system/node: err %v, want one wrapping fs.ErrNotExist", err)
	}
}

// TestNUMANodesCap: a directory with more entries than any kernel makes
// (MAX_NUMNODES) is refused, not listed to its end.
func TestNUMANodesCap(t *testing.T) {
	var b strings.Builder
	for i := range NUMANodesMax + 17 {
		b.WriteString("-- sys/devices/system/node/node" + strconv.Itoa(i) + "/cpulist --\n\n")
	}
	if ns, err := fakeFS(t, b.String()).NUMANodes(); err == nil {
		t.Errorf("%d nodes listed past the cap", len(ns))
	}
}
