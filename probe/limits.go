package probe

import "aorta-probe/internal/machine"

// defaultWorkers is Options.Workers when the caller left it 0: 1 under low
// limits (machine.LowLimits: the collection then runs serially), else
// unbounded.
func defaultWorkers() int {
	if _, low := machine.LowLimits(); low {
		return 1
	}
	return unbounded
}

const unbounded = 1 << 30
