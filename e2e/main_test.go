package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// bareHost is a root whose namespaces are all the kernel's initial ones and
// that has no container marker: container_detected is false there. Its
// mount and network namespaces carry the fixed initial numbers (kernels
// ≥ 6.18), so it reads the same whatever kernel runs the test.
const bareHost = `A bare-metal host as seen from its initial namespaces.
-- proc/self/ns/mnt -> mnt:[4026531832] --
-- proc/self/ns/net -> net:[4026531833] --
-- proc/self/ns/pid -> pid:[4026531836] --
-- proc/self/ns/user -> user:[4026531837] --
-- proc/self/ns/cgroup -> cgroup:[4026531835] --
-- proc/self/ns/uts -> uts:[4026531838] --
-- proc/self/ns/ipc -> ipc:[4026531839] --
-- proc/1/ns/mnt -> mnt:[4026531832] --
-- proc/self/uid_map --
         0          0 4294967295
-- proc/self/status --
Pid:	4242
PPid:	4000
NSpid:	4242
-- proc/4000/ns/mnt -> mnt:[4026531832] --
-- proc/self/cgroup --
0::/user.slice/user-1000.slice/session-3.scope
-- proc/1/cgroup --
0::/init.scope
-- proc/sys/kernel/random/boot_id --
0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
`

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(nil, args, &o, &e)
	return code, o.String(), e.String()
}

func TestCLIStdoutAndFile(t *testing.T) {
	root := testtree.Archive(t, bareHost)
	code, out, errs := runCLI(t, "--root", root, "-")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.HasSuffix(out, "}\n") || strings.HasSuffix(out, "\n\n") {
		t.Errorf("stdout must end with exactly one newline")
	}
	v, err := pyjson.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	keys := v.(pyjson.Map[any]).Keys()
	if len(keys) != 41 || keys[9] != "therock" || keys[40] != "probe_provenance" {
		t.Errorf("keys: %v", keys)
	}

	path := filepath.Join(t.TempDir(), "env.json")
	if code, out, errs := runCLI(t, path, "--root", root, "--no-provenance"); code != 0 || out != "" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasSuffix(doc, []byte("\n")) {
		t.Error("file ends with a newline")
	}
	v, _ = pyjson.Decode(string(doc))
	if keys := v.(pyjson.Map[any]).Keys(); len(keys) != 40 || keys[9] != "therock" || keys[39] != "partial_reasons" {
		t.Errorf("--no-provenance keys: %v", keys)
	}
	// -o is the same as OUT, and an existing file is replaced whole.
	if code, _, errs := runCLI(t, "--root", root, "-o", path); code != 0 {
		t.Fatalf("-o: exit %d %s", code, errs)
	}
	if code, _, _ := runCLI(t, "--root", root, "-o"+path, "--extended"); code != 0 {
		t.Fatal("-oPATH form failed")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestCLIWriteFailures(t *testing.T) {
	root := testtree.Archive(t, bareHost)
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "env.json")
	code, out, errs := runCLI(t, "--root", root, missing)
	want := "aorta-probe: failed to write " + missing + ": [Errno 2] No such file or directory: '" + missing + "'\n"
	if code != 1 || out != "" || errs != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errs, want)
	}
	code, _, errs = runCLI(t, "--root", root, dir)
	if code != 1 || !strings.Contains(errs, "Is a directory") || strings.Count(errs, "\n") != 1 {
		t.Errorf("directory as OUT: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("parent directories were created")
	}
}

func TestCLIUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--execution-context"}, "--execution-context requires one of: direct, buck2_run, buck2_action (got '(missing)')"},
		{[]string{"--execution-context", "remote"}, "--execution-context requires one of: direct, buck2_run, buck2_action (got 'remote')"},
		{[]string{"--execution-context=buck2"}, "(got 'buck2')"},
		{[]string{"--execution-context="}, "(got '')"},
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"-h=x"}, "option -h does not take a value"},
		{[]string{"-x"}, "unknown flag -x"},
		{[]string{""}, "OUT must be a non-empty path"},
		{[]string{"--buck-target", "//a:b", "--buck-timeout", "18446744074"}, "18446744074 is not in the range 1<=x<=9223372036."},
		{[]string{"--summary=yes"}, "option --summary does not take a value"},
		{[]string{"a.json", "b.json"}, "unexpected extra argument 'b.json'"},
		{[]string{"a.json", "-o", "b.json"}, "not both"},
		{[]string{"-o"}, "option -o requires a value"},
		{[]string{"--field"}, "option --field requires a value"},
		{[]string{"--deadline", "soon"}, "--deadline needs a duration from 1ns to 2562047h47m16s"},
		{[]string{"--deadline", "-1s"}, "--deadline needs a duration from 1ns to 2562047h47m16s"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) || !strings.HasPrefix(errs, "aorta-probe: ") {
			t.Errorf("%q: exit %d, stderr %q, want it to contain %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestCLIField(t *testing.T) {
	root := testtree.Archive(t, bareHost)
	for _, tc := range []struct {
		path      string
		code      int
		out, errs string
	}{
		{"schema_version", 0, "\"1.16\"\n", ""},
		{"rocm.root", 0, "\"/opt/rocm\"\n", ""},
		{"container_detected", 0, "false\n", ""},
		{"docker", 0, "null\n", ""},
		{"execution_context", 0, "{\"probe_invocation\": \"direct\", \"likely_execution_platform\": null}\n", ""},
		{"docker.image", 1, "", "aorta-probe: --field docker.image: docker is null\n"},
		{"schema_version.x", 1, "", "aorta-probe: --field schema_version.x: schema_version is a string, not an object\n"},
		{"partial_reasons.0", 1, "", "aorta-probe: --field partial_reasons.0: partial_reasons is an array, not an object\n"},
		{"partial_reasons[0]", 0, "\"system_health: rdhc not on PATH (see docs/env-probe.md#installing-rdhc)\"\n", ""},
		{"partial_reasons[99]", 1, "", "aorta-probe: --field partial_reasons[99]: index 99 out of range: partial_reasons has "},
		{"rocm[0]", 1, "", "aorta-probe: --field rocm[0]: rocm is an object, not an array\n"},
		{"rocm.nope", 1, "", "aorta-probe: --field rocm.nope: no key 'nope' in rocm (keys: kmd_version, layout, lib_root, root, root_source, version, version_dev, version_source)\n"},
		{"bogus", 1, "", "aorta-probe: --field bogus: no key 'bogus' in the document (keys: aiter, amdgpu_driver, aotriton, buck_invocation, build_system, captured_at, composable_kernel, container_detected, docker, env_vars (+ 31 more))\n"},
		{"", 2, "", "aorta-probe: --field needs a non-empty path\nTry 'aorta-probe --help' for help.\n"},
	} {
		code, out, errs := runCLI(t, "--root", root, "--field", tc.path)
		if code != tc.code || out != tc.out || !strings.HasPrefix(errs, tc.errs) || (tc.errs == "") != (errs == "") {
			t.Errorf("--field %q: exit %d, stdout %q, stderr %q", tc.path, code, out, errs)
		}
	}
	if code, _, errs := runCLI(t, "--summary", "--field", "x"); code != 2 || errs != "aorta-probe: --summary and --field are mutually exclusive\nTry 'aorta-probe --help' for help.\n" {
		t.Errorf("summary+field: %d %q", code, errs)
	}
}

func TestCLISummary(t *testing.T) {
	root := testtree.Archive(t, bareHost)
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, _ := runCLI(t, "--root", root, "--summary")
	if code != 0 {
		t.Fatal(code)
	}
	brief, reasons, ok := strings.Cut(out, "\n\nPartial reasons:\n")
	if !ok {
		t.Fatalf("no reasons section in %q", out)
	}
	lines := strings.Split(brief, "\n")
	// The Python probe's 31 lines, then aorta-probe's rocm installs line
	// and, where the probe read the GPUs, its gpus line, then its tuning
	// line (docs/tuning.md).
	if len(lines) > 32 && strings.HasPrefix(lines[len(lines)-1], "  tuning:    ") {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 33 && strings.HasPrefix(lines[32], "  gpus:      ") {
		lines = lines[:32]
	}
	if len(lines) != 32 || !strings.HasPrefix(lines[0], "  runtime:   baremetal / python=system  container_detected=no  probe=direct  ns=mnt:") ||
		lines[30] != "  rdhc:      unavailable (system_health=null)" || !strings.HasPrefix(lines[31], "  rocm installs: ") {
		t.Errorf("brief:\n%s", brief)
	}
	if !strings.HasPrefix(reasons, "  - ") || strings.Contains(out, "PARTIAL") {
		t.Errorf("reasons:\n%s", reasons)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Error("--summary wrote a file")
	}
}

func TestCLIWarning(t *testing.T) {
	root := testtree.Archive(t, bareHost)
	t.Setenv("AORTA_RE_IMAGE", "")
	t.Setenv("AORTA_DOCKER_IMAGE", "")
	_, _, errs := runCLI(t, "--root", root, "--execution-context", "buck2_action", "--field", "schema_version")
	if !strings.HasPrefix(errs, "WARNING: --execution-context buck2_action claims an in-action capture") || strings.Count(errs, "\n") != 1 {
		t.Errorf("stderr %q", errs)
	}
	_, _, errs = runCLI(t, "--root", root, "--execution-context=buck2_run", "--field", "schema_version")
	if !strings.HasPrefix(errs, "NOTICE: --execution-context buck2_run") {
		t.Errorf("stderr %q", errs)
	}
	t.Setenv("AORTA_RE_IMAGE", "registry/rocm:7.2")
	if _, _, errs = runCLI(t, "--root", root, "--execution-context", "buck2_action", "--field", "schema_version"); errs != "" {
		t.Errorf("a declared launcher image must silence the warning: %q", errs)
	}
}

func TestCLIHelpVersion(t *testing.T) {
	if code, out, _ := runCLI(t, "--help"); code != 0 || !strings.HasPrefix(out, "Usage: aorta-probe") {
		t.Errorf("--help: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, "-h"); code != 0 || !strings.HasPrefix(out, "Usage: aorta-probe") {
		t.Errorf("-h: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, "--version"); code != 0 || !strings.Contains(out, "schema 1.16") {
		t.Errorf("--version: %d %q", code, out)
	}
}
