package lazyre

import (
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

func TestNew(t *testing.T) {
	re := New(`^gfx([0-9a-f]+)$`)
	if first, second := re(), re(); first != second {
		t.Error("two calls compiled two expressions")
	}
	if m := re().FindStringSubmatch("gfx942"); m == nil || m[1] != "942" {
		t.Errorf("FindStringSubmatch = %q", m)
	}
}

func TestNewInvalidPanicsOnUse(t *testing.T) {
	re := New(`(`) // no panic yet
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on its first use")
		}
	}()
	re()
}
