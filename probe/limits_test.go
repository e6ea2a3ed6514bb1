package probe

import (
	"testing"

	"aorta-probe/internal/machine"
)

// TestDefaultWorkers: one probe at a time under low resource limits,
// else unbounded.
func TestDefaultWorkers(t *testing.T) {
	want := unbounded
	if _, low := machine.LowLimits(); low {
		want = 1
	}
	if got := defaultWorkers(); got != want {
		t.Errorf("defaultWorkers() = %d, want %d", got, want)
	}
	if got := withDefaults(Options{}).Workers; got != want {
		t.Errorf("withDefaults: Workers %d, want %d", got, want)
	}
}
