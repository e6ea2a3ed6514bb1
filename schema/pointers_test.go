package schema

import "testing"

// TestPointers: each call points at its own copy of the value, so a block
// that changes one field never changes another's.
func TestPointers(t *testing.T) {
	a, b := Str("x"), Str("x")
	if a == b || *a != "x" || *b != "x" {
		t.Errorf("Str: %p %p %q %q", a, b, *a, *b)
	}
	*a = "y"
	if *b != "x" {
		t.Error("Str: the pointers share their value")
	}
	if i, j := Int(3), Int(3); i == j || *i != 3 {
		t.Errorf("Int: %p %p %d", i, j, *i)
	}
	if p, q := Bool(true), Bool(true); p == q || !*p {
		t.Errorf("Bool: %p %p %v", p, q, *p)
	}
}
