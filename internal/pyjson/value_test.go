package pyjson

import "testing"

// TestSorted: a Go map becomes a Map in key order, whatever order the map
// iterates in; an empty map is an empty (not nil) Map.
func TestSorted(t *testing.T) {
	m := Sorted(map[string]int{"b": 2, "a": 1, "B": 3, "": 0})
	if got := m.Keys(); len(got) != 4 || got[0] != "" || got[1] != "B" || got[2] != "a" || got[3] != "b" {
		t.Errorf("Sorted keys = %q", got)
	}
	if v, _ := m.Get("B"); v != 3 {
		t.Errorf("Sorted B = %d", v)
	}
	if e := Sorted(map[string]bool{}); e == nil || len(e) != 0 {
		t.Errorf("Sorted of an empty map = %#v", e)
	}
}
