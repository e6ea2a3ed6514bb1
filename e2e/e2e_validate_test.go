package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// TestValidateLiveDocuments: what this probe writes now validates, with and
// without probe_provenance and with --extended (in-process).
func TestValidateLiveDocuments(t *testing.T) {
	root := testtree.Archive(t, bareHost)
	dir := t.TempDir()
	for name, extra := range map[string][]string{
		"full.json":          nil,
		"no-provenance.json": {"--no-provenance"},
		"extended.json":      {"--extended"},
	} {
		path := filepath.Join(dir, name)
		args := append([]string{path, "--root", root, "--no-python"}, extra...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if code, out, errs := runCLI(t, "validate", path); code != 0 || out != "" || errs != "" {
			t.Errorf("validate %s: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
	}
}

// TestValidateUsage: usage errors exit 2 before reading anything.
func TestValidateUsage(t *testing.T) {
	for _, args := range [][]string{{"validate"}, {"validate", "--bogus", "x"}, {"validate", "-", "-"}} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "aorta-probe validate: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if code, out, _ := runCLI(t, "validate", "--help"); code != 0 || !strings.HasPrefix(out, "Usage: aorta-probe validate") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}

// TestE2EValidate runs the real binary for the exit codes and the exact
// lines: 0 valid (silent), 1 invalid (one stdout line per problem), 2 not
// JSON or unreadable (one stderr line), the worst status of several files.
func TestE2EValidate(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	golden, err := os.ReadFile("testdata/golden/docker-container.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(golden), `"type": "docker",`, `"type": "lxc",`, 1)
	bad = strings.Replace(bad, `"schema_version": "1.16",`, `"schema_version": "1.16",
  "hostname": "node-1",`, 1)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badPath := write("bad.json", bad)
	// An older 1.16 revision's document: therock last, no probe_provenance;
	// and one with therock in neither place.
	reorder := func(after string) string {
		v, err := pyjson.Decode(string(golden))
		if err != nil {
			t.Fatal(err)
		}
		var tr pyjson.Entry[any]
		var out pyjson.Map[any]
		for _, e := range v.(pyjson.Map[any]) {
			switch e.Key {
			case "therock":
				tr = e
			case "probe_provenance":
			default:
				out = append(out, e)
			}
		}
		for i, e := range out {
			if e.Key == after {
				out = append(out[:i+1], append(pyjson.Map[any]{tr}, out[i+1:]...)...)
				break
			}
		}
		return string(pyjson.Encode(out))
	}
	olderPath := write("older.json", reorder("partial_reasons"))
	misplacedPath := write("misplaced.json", reorder("hip"))
	garbage := write("garbage.json", "garbage\n")
	goldens, _ := filepath.Glob("testdata/golden/*.json")

	run := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"validate"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		return runCmd(t, cmd)
	}
	for _, tc := range []struct {
		name      string
		stdin     string
		args      []string
		code      int
		out, errs string
	}{
		{"goldens", "", goldens, 0, "", ""},
		{"stdin", string(golden), []string{"-"}, 0, "", ""},
		{"older 1.16 order (therock last)", "", []string{olderPath}, 0, "", ""},
		{"therock misplaced", "", []string{misplacedPath}, 1, misplacedPath + `: $: keys out of order: expected "therock", got "amdgpu_driver"` + "\n", ""},
		{"invalid", "", []string{badPath}, 1,
			badPath + ": $.hostname: unexpected key\n" +
				badPath + `: $.runtime_context.type: expected one of "docker", "podman", "singularity", "baremetal", got "lxc"` + "\n", ""},
		{"garbage", "", []string{garbage}, 2, "", garbage + ": not JSON: Expecting value: line 1 column 1 (char 0)\n"},
		{"garbage stdin", "{", []string{"-"}, 2, "", "-: not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)\n"},
		{"missing", "", []string{filepath.Join(dir, "nope.json")}, 2, "", filepath.Join(dir, "nope.json") + ": cannot open: no such file or directory\n"},
		{"worst of several", "", []string{goldens[0], badPath, garbage}, 2,
			badPath + ": $.hostname: unexpected key\n" +
				badPath + `: $.runtime_context.type: expected one of "docker", "podman", "singularity", "baremetal", got "lxc"` + "\n",
			garbage + ": not JSON: Expecting value: line 1 column 1 (char 0)\n"},
	} {
		code, out, errs := run(tc.stdin, tc.args...)
		if code != tc.code || out != tc.out || errs != tc.errs {
			t.Errorf("%s: exit %d (want %d)\nstdout %q\n  want %q\nstderr %q\n  want %q", tc.name, code, tc.code, out, tc.out, errs, tc.errs)
		}
	}
}
