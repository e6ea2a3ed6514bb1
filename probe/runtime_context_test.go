package probe

import (
	"context"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
)

// TestCollectRuntimeContext: conda by $CONDA_DEFAULT_ENV first; then the
// interpreter's answer, a venv when its prefix is not its base prefix;
// without an interpreter $VIRTUAL_ENV; else the system interpreter. An
// empty root is bare metal.
func TestCollectRuntimeContext(t *testing.T) {
	venv := &pyInterpreter{Prefix: "/work/.venv", BasePrefix: "/usr"}
	system := &pyInterpreter{Prefix: "/usr", BasePrefix: "/usr"}
	for _, tc := range []struct {
		name              string
		env               map[string]string
		in                *pyInterpreter
		pyEnv, venv, env2 string
	}{
		{"conda", map[string]string{"CONDA_DEFAULT_ENV": "base", "VIRTUAL_ENV": "/v"}, venv, "conda", "null", "base"},
		{"venv", map[string]string{"VIRTUAL_ENV": "/v"}, venv, "venv", "/work/.venv", "null"},
		{"system", map[string]string{"VIRTUAL_ENV": "/v"}, system, "system", "null", "null"},
		{"no interpreter", map[string]string{"VIRTUAL_ENV": "/v"}, nil, "venv", "/v", "null"},
		{"nothing", nil, nil, "system", "null", "null"},
	} {
		env := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: t.TempDir(), Cwd: "/", Env: env, Path: []string{}}})
		c.python = func() *pyFacts { return &pyFacts{outcome: pyOK, Interpreter: tc.in} }
		rc := collectRuntimeContext(&state{collector: c, name: "runtime_context"})
		if rc.Type != "baremetal" || rc.PythonEnv != tc.pyEnv || golden.OrNull(rc.VenvPath) != tc.venv || golden.OrNull(rc.CondaEnvName) != tc.env2 {
			t.Errorf("%s: %s %s %s %s", tc.name, rc.Type, rc.PythonEnv, golden.OrNull(rc.VenvPath), golden.OrNull(rc.CondaEnvName))
		}
	}
}
