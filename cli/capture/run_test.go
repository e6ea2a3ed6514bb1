package capture

import (
	"os"
	"path/filepath"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/probe"
)

// TestCheckPython: an explicit --python must name an interpreter: an
// existing path that is no directory, or a bare name found on PATH (none
// under a --root DIR); a replay and --no-python check nothing.
func TestCheckPython(t *testing.T) {
	dir := t.TempDir()
	py := filepath.Join(dir, "python3")
	os.WriteFile(py, []byte("#!/bin/sh\n"), 0o755)
	archive := filepath.Join(dir, "node.cap")
	os.WriteFile(archive, []byte("x\n"), 0o644)
	t.Setenv("PATH", dir)
	t.Chdir(dir)
	for _, tc := range []struct {
		opt probe.Options
		err string
	}{
		{probe.Options{}, ""},
		{probe.Options{Python: probe.PythonOptions{Interpreter: py}}, ""},
		{probe.Options{Python: probe.PythonOptions{Interpreter: "./python3"}}, ""},
		{probe.Options{Python: probe.PythonOptions{Interpreter: "python3"}}, ""},
		{probe.Options{Python: probe.PythonOptions{Interpreter: "/nonexistent/python3"}}, "--python: [Errno 2] No such file or directory: '/nonexistent/python3'"},
		{probe.Options{Python: probe.PythonOptions{Interpreter: py + "/x"}}, "--python: [Errno 20] Not a directory: '" + py + "/x'"},
		{probe.Options{Python: probe.PythonOptions{Interpreter: dir}}, "--python '" + dir + "' is a directory, not an interpreter"},
		{probe.Options{Python: probe.PythonOptions{Interpreter: "python9"}}, "--python 'python9': not found on PATH"},
		{probe.Options{Seams: machine.Seams{Root: dir}, Python: probe.PythonOptions{Interpreter: "python3"}}, "--python 'python3': a bare name is not looked up under --root '" + dir + "' (no search path); give the interpreter's path"},
		{probe.Options{Seams: machine.Seams{Root: "/"}, Python: probe.PythonOptions{Interpreter: "python3"}}, ""},
		{probe.Options{Python: probe.PythonOptions{Interpreter: "/nonexistent/python3", Disabled: true}}, ""},
		{probe.Options{Seams: machine.Seams{Root: archive}, Python: probe.PythonOptions{Interpreter: "/nonexistent/python3"}}, ""},
		{probe.Options{Seams: machine.Seams{Root: archive}, Python: probe.PythonOptions{Interpreter: "python9"}}, ""},
	} {
		err := checkPython(tc.opt)
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("%+v: error %v, want %q", tc.opt.Python, err, tc.err)
		}
	}
}
