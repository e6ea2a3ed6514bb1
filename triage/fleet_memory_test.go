package triage

import "testing"

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
