package probe

// pythonVersion is the python_version field and the one reason that says
// how the Python bridge went (docs/python.md).
type pythonVersion struct{ version string }

// collectPythonVersion is python_version (docs/python.md). Source:
// platform.python_version() of the workload interpreter, as the helper
// reports it first thing (so an interpreter killed later in `import torch`
// still has a version). No interpreter report → "" (the Python probe's
// disaster-path value). This row also appends the bridge's own reason when
// the run was not ok (disabled, no interpreter, could not start, killed at
// its timeout, exited early): a reason the Python probe, which always has an
// interpreter, never writes; then one reason per helper value that was out
// of bounds (bounds.go).
func collectPythonVersion(s *state) pythonVersion {
	f := s.python()
	if f.outcome != pyOK {
		s.reason("python_version: %s", f.detail)
	}
	for _, b := range f.bounded {
		s.reason("python_version: %s", b)
	}
	if f.Interpreter == nil {
		return pythonVersion{}
	}
	return pythonVersion{f.Interpreter.PythonVersion}
}
