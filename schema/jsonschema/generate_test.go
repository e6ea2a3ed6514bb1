package jsonschema

import (
	"os/exec"
	"strings"
	"testing"
)

// crossCheck runs in the repository root: it checks both published files
// against the draft 2020-12 meta-schema, validates every golden with the
// reference implementation, and expects exactly the mutated key to fail.
const crossCheck = `
import json, sys, glob
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
env = json.load(open('docs/schema/env-1.16.schema.json'))
prov = json.load(open('docs/schema/probe-provenance.schema.json'))
Draft202012Validator.check_schema(env)
Draft202012Validator.check_schema(prov)
reg = Registry().with_resources([(s['$id'], Resource.from_contents(s)) for s in (env, prov)])
v = Draft202012Validator(env, registry=reg)
bad = 0
for f in sorted(glob.glob('testdata/golden/*.json')):
    for e in v.iter_errors(json.load(open(f))):
        print(f, list(e.absolute_path), e.message[:200])
        bad += 1
d = json.load(open('testdata/golden/mi350-host.json'))
d['rocm']['version'] = 3
d['nics']['cx7'] = {'present': True}
errs = sorted(list(e.absolute_path) for e in v.iter_errors(d))
if errs != [['nics', 'cx7'], ['rocm', 'version']]:
    print('mutated document:', errs)
    bad += 1
sys.exit(1 if bad else 0)
`

// TestCrossCheckPythonJSONSchema: the published files mean to a standard
// draft 2020-12 validator (python-jsonschema) what they mean to Validate.
// Skipped where python3 or its jsonschema module is missing.
func TestCrossCheckPythonJSONSchema(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: no reference validator to cross-check with")
	}
	if err := exec.Command(py, "-c", "import jsonschema, referencing").Run(); err != nil {
		t.Skip("python3 has no jsonschema/referencing module (apt-get install python3-jsonschema)")
	}
	cmd := exec.Command(py, "-c", crossCheck)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("python-jsonschema disagrees: %v\n%s", err, strings.TrimSpace(string(out)))
	}
}
