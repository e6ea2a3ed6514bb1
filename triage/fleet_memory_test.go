package triage

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/fleetgen"
)

var fleetgenNode = fleetgen.Node

// TestRowPool: equal rows share one slice, rows that differ in a value or
// in length do not, and a shared row is not changed by later rows.
func TestRowPool(t *testing.T) {
	var p rowPool
	a := p.intern([]int32{1, 2, 3})
	b := p.intern([]int32{1, 2, 3})
	c := p.intern([]int32{1, 2, 4})
	d := p.intern([]int32{1, 2, 3, 0})
	if &a[0] != &b[0] {
		t.Error("equal rows are not shared")
	}
	if &a[0] == &c[0] || &a[0] == &d[0] || len(d) != 4 || c[2] != 4 {
		t.Errorf("different rows shared: %v %v %v", a, c, d)
	}
	if a[2] != 3 || cap(a) != 3 {
		t.Errorf("the shared row changed or keeps spare capacity: %v (cap %d)", a, cap(a))
	}
}

// TestFleetPerNodeFields: two real-shaped nodes (internal/fleetgen: their
// own capture and start times, durations, namespace ids and inode hashes,
// namespace hash, container id; node 8 another boot) flatten to the same
// leaves, so they share one tally row: nothing unique per node is
// tallied (fields.go). Their places differ.
func TestFleetPerNodeFields(t *testing.T) {
	tmpl := fleetTemplate(t, 0, nil)
	var leaves [][]leaf
	var places []fleetPlace
	for _, i := range []int{0, 1, 8} {
		d, err := Parse("node", string(fleetgenNode(tmpl, i)))
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, flatten(d))
		places = append(places, placeOf(d))
	}
	if len(leaves[0]) < 300 {
		t.Fatalf("%d leaves: the template lost its fields", len(leaves[0]))
	}
	for i := 1; i < len(leaves); i++ {
		if !slices.Equal(leaves[0], leaves[i]) {
			for j := range min(len(leaves[0]), len(leaves[i])) {
				if leaves[0][j] != leaves[i][j] {
					t.Errorf("a per-node field is tallied: %v vs %v", leaves[0][j], leaves[i][j])
					break
				}
			}
			t.Errorf("nodes flatten differently (%d and %d leaves)", len(leaves[0]), len(leaves[i]))
		}
	}
	for _, l := range leaves[0] {
		if !tallied(strings.Split(l.path, ".")) {
			t.Errorf("%s (class %d) tallied", l.path, classOf(strings.Split(l.path, ".")))
		}
	}
	if places[0].boot != places[1].boot || places[0].boot == places[2].boot || places[0].mnt == places[1].mnt || places[0].boot == "" {
		t.Errorf("places %+v: want one boot for nodes 0 and 1, another for node 8, a mount namespace id each", places)
	}
}

// TestFleetKeepsNoDocument: what the tally keeps alive does not grow with
// the documents' size: 60 real-shaped documents of 400 KB (24 MB in all)
// tallied leave less than 8 MiB of live heap. Before issue 28 each
// document's boot fingerprint, a slice of its text, kept the whole text
// alive until the end of the run.
func TestFleetKeepsNoDocument(t *testing.T) {
	const n = 60
	tmpl := fleetTemplate(t, 400000, nil)
	_, paths := writeFleet(t, n, tmpl, nil)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	ta := newTally()
	for _, p := range paths {
		d := readFleetDoc(p)
		if d.Err != nil {
			t.Fatal(d.Err)
		}
		ta.add(d)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Errorf("the tally keeps %d bytes alive for %d documents of %d bytes", grown, n, len(tmpl))
	}
	if len(ta.places) != n || ta.places[0].boot == "" {
		t.Errorf("places %+v", ta.places)
	}
	runtime.KeepAlive(ta)
}
