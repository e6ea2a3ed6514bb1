package probe

import "time"

// PythonOptions choose the interpreter whose facts the Python blocks
// describe (the Python bridge, docs/python.md#1-the-bridge).
type PythonOptions struct {
	// Interpreter is --python PATH: the program run as the workload
	// interpreter. A bare name is looked up on the probe's search path.
	// Empty means $AORTA_PROBE_PYTHON, else python3, else python.
	Interpreter string
	// Disabled is --no-python: no interpreter is run; every Python-side
	// block describes "no interpreter".
	Disabled bool
	// Timeout bounds the one helper run; zero means DefaultPythonTimeout
	// (never more than two thirds of the collection deadline).
	Timeout time.Duration
	// Self is the probe's own executable, which is never run as the
	// interpreter; "" means /proc/self/exe (docs/python.md, "Loops").
	Self string
}

// HelperMarker is set in the helper run's environment (to the probe's
// pid). A probe that finds it set runs inside a helper run of another
// probe (an interpreter that is a copy of the probe, or a wrapper that
// starts one) and runs no interpreter itself, so a loop stops there.
const HelperMarker = "AORTA_PROBE_HELPER_OF"
