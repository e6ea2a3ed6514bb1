package capture

import "errors"

// pythonOptions are the flags that choose the workload interpreter
// (docs/python.md): --python PATH and --no-python.
var pythonOptions = []option{
	{names: []string{"--python"}, value: true, set: func(c *config, _, v string) error {
		c.options.Python.Interpreter = v
		if v == "" {
			return errors.New("option --python requires a non-empty interpreter path")
		}
		return nil
	}},
	{names: []string{"--no-python"}, set: func(c *config, _, _ string) error { c.options.Python.Disabled = true; return nil }},
}
