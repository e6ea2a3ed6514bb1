package main

import "errors"

// pythonFlag parses the flags that choose the workload interpreter
// (docs/python.md): --python PATH and --no-python. It reports whether name
// was one of them.
func pythonFlag(name string, value func() (string, error), flag func() error, c *config) (bool, error) {
	switch name {
	case "--python":
		v, err := value()
		if err == nil && v == "" {
			err = errors.New("option --python requires a non-empty interpreter path")
		}
		c.options.Python.Interpreter = v
		return true, err
	case "--no-python":
		c.options.Python.Disabled = true
		return true, flag()
	}
	return false, nil
}
