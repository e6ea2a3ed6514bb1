package probe

// PythonOptions choose the interpreter whose facts the Python blocks
// describe (architecture.md §4, the Python bridge).
type PythonOptions struct{}
