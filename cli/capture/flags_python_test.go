package capture

import (
	"strings"
	"testing"
)

func TestPythonFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		interp   string
		disabled bool
		err      string
	}{
		{args: []string{"--python", "/opt/venv/bin/python3"}, interp: "/opt/venv/bin/python3"},
		{args: []string{"--python=python3.12", "out.json"}, interp: "python3.12"},
		{args: []string{"--no-python"}, disabled: true},
		{args: []string{"--python"}, err: "option --python requires a value"},
		{args: []string{"--python="}, err: "requires a non-empty interpreter path"},
		{args: []string{"--no-python=yes"}, err: "does not take a value"},
	} {
		c, err := parseArgs(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if p := c.options.Python; p.Interpreter != tc.interp || p.Disabled != tc.disabled {
			t.Errorf("%q: %+v", tc.args, p)
		}
	}
	if !strings.Contains(Usage, "--python PATH") || !strings.Contains(Usage, "--no-python") {
		t.Error("usage does not list the Python flags")
	}
}
