package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The rough edges of the command line (issue 28), through the static
// binary: repeated flags, mistyped subcommands, the messages of bad
// input, --python that names nothing, the brief's rocm line.

// usageLines is what a usage error of cmd prints: the message and the
// hint to cmd's help.
func usageLines(cmd, msg string) string {
	return cmd + ": " + msg + "\nTry '" + cmd + " --help' for help.\n"
}

// TestE2ERepeatedFlags: a flag that takes one value, given twice, is exit
// 2 naming it, before anything is collected or written; --field given
// several times prints each value on its own line, in order, and one
// that fails prints nothing but its error.
func TestE2ERepeatedFlags(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-o", "a.json", "-o", "b.json"}, "-o/--output given twice ('a.json', then 'b.json'): give it once"},
		{[]string{"--output=a.json", "-ob.json"}, "-o/--output given twice ('a.json', then 'b.json'): give it once"},
		{[]string{"--root", dir, "--root", dir, "x.json"}, "--root given twice ('" + dir + "', then '" + dir + "'): give it once"},
		{[]string{"--python", "/usr/bin/python3", "--python", "python3", "x.json"}, "--python given twice ('/usr/bin/python3', then 'python3'): give it once"},
		{[]string{"--deadline", "5s", "--deadline=10s"}, "--deadline given twice ('5s', then '10s'): give it once"},
		{[]string{"--execution-context", "direct", "--execution-context", "buck2_run"}, "--execution-context given twice ('direct', then 'buck2_run'): give it once"},
		{[]string{"--out-dir", dir, "--out-dir", dir}, "--out-dir given twice ('" + dir + "', then '" + dir + "'): give it once"},
	} {
		code, stdout, stderr := runProbe(t, bin, dir, env, tc.args...)
		if want := usageLines("aorta-probe", tc.msg); code != 2 || stdout != "" || stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, want)
		}
	}
	// capture's own line too, pointing at its help.
	code, _, stderr := runProbe(t, bin, dir, env, "capture", "c.cap", "-o", "a.json", "-o", "b.json")
	if want := usageLines("aorta-probe capture", "-o/--output given twice ('a.json', then 'b.json'): give it once"); code != 2 || stderr != want {
		t.Errorf("capture -o -o: exit %d, stderr %q; want %q", code, stderr, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a repeated flag wrote %v", entries)
	}

	quick := []string{"--no-python", "--root", dir}
	code, stdout, stderr := runProbe(t, bin, dir, env, append(quick, "--field", "schema_version", "--field", "execution_context.probe_invocation", "--field=rocm.root", "--field", "schema_version")...)
	if want := "\"1.16\"\n\"direct\"\n\"/opt/rocm\"\n\"1.16\"\n"; code != 0 || stdout != want || stderr != "" {
		t.Errorf("--field x4: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	code, stdout, stderr = runProbe(t, bin, dir, env, append(quick, "--field", "schema_version", "--field", "docker.image", "--field", "rocm.nope")...)
	if want := "aorta-probe: --field docker.image: docker is null\n"; code != 1 || stdout != "" || stderr != want {
		t.Errorf("--field with a failing one: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout and %q", code, stdout, stderr, want)
	}
	code, _, stderr = runProbe(t, bin, dir, env, append(quick, "--field", "schema_version", "--field", "rocm", "-o", "x.json")...)
	if want := usageLines("aorta-probe", "--field prints to stdout and takes no output path (got 'x.json')"); code != 2 || stderr != want {
		t.Errorf("--field x2 -o: exit %d, stderr %q", code, stderr)
	}
}

// TestE2EMistypedSubcommand: a first word within two edits of a
// subcommand (no '/', no '.') is exit 2 naming the subcommand and how to
// write a file of that name, and writes nothing; ./WORD, a word with a
// dot and a word far from every name still name OUT.
func TestE2EMistypedSubcommand(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	for _, tc := range []struct {
		args       []string
		word, name string
	}{
		{[]string{"valdate"}, "valdate", "validate"},
		{[]string{"dif", "a.json", "b.json"}, "dif", "diff"},
		{[]string{"Diff", "a.json", "b.json"}, "Diff", "diff"},
		{[]string{"captrue", "node.cap"}, "captrue", "capture"},
		{[]string{"envnames"}, "envnames", "env-names"},
		{[]string{"hepl"}, "hepl", "help"},
	} {
		code, stdout, stderr := runProbe(t, bin, dir, env, tc.args...)
		want := usageLines("aorta-probe", "'"+tc.word+"' is not a subcommand; did you mean "+tc.name+"? (to write the document to a file named "+tc.word+", give it as ./"+tc.word+")")
		if code != 2 || stdout != "" || stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a mistyped subcommand wrote %v", entries)
	}
	for _, out := range []string{"./valdate", "dif.json", "node"} {
		code, _, stderr := runProbe(t, bin, dir, env, out, "--no-python", "--root", dir)
		if code != 0 || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", out, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		checkDocument(t, string(b))
	}
}

// TestE2EMessages: the messages of issue 28's item 9, each exit 2 (1 for
// a --field lookup) and bounded.
func TestE2EMessages(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	long := strings.Repeat("x", 100_000)
	clipped := strings.Repeat("x", 80) + "…"
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--field", "partial_reasons[abc]"}, usageLines("aorta-probe", "--field partial_reasons[abc]: [abc] is not a list index (an integer: [0] the first item, [-1] the last)")},
		{[]string{"capture", "--bogus"}, usageLines("aorta-probe capture", "unknown flag --bogus")},
		{[]string{"capture", "c.cap", "--bogus"}, usageLines("aorta-probe capture", "unknown flag --bogus")},
		{[]string{"capture"}, usageLines("aorta-probe capture", "no ARCHIVE given")},
		{[]string{"--bogus"}, usageLines("aorta-probe", "unknown flag --bogus")},
		{[]string{"--" + long}, usageLines("aorta-probe", "unknown flag --"+strings.Repeat("x", 78)+"…")},
		{[]string{"--field", long + "[y]"}, usageLines("aorta-probe", "--field "+clipped+": [y] is not a list index (an integer: [0] the first item, [-1] the last)")},
		{[]string{"a.json", long}, usageLines("aorta-probe", "unexpected extra argument '"+clipped+"' (only one OUT path is taken)")},
		{[]string{"validate", "--bogus", "x.json"}, "aorta-probe validate: unknown flag --bogus; try 'aorta-probe validate --help'\n"},
		{[]string{"validate"}, "aorta-probe validate: no FILE given; try 'aorta-probe validate --help'\n"},
		{[]string{"diff", "--bogus", "a", "b"}, usageLines("aorta-probe diff", "unknown flag --bogus")},
	} {
		code, stdout, stderr := runProbe(t, bin, dir, env, tc.args...)
		if code != 2 || stdout != "" || stderr != tc.stderr {
			t.Errorf("%.60q: exit %d, stderr %.300q; want exit 2 and %.300q", tc.args, code, stderr, tc.stderr)
		}
	}
	// A lookup that fails after the capture: exit 1, the path bounded.
	code, _, stderr := runProbe(t, bin, dir, env, "--no-python", "--root", dir, "--field", "rocm."+long)
	if want := "aorta-probe: --field rocm." + strings.Repeat("x", 75) + "…: no key '" + clipped + "' in rocm (keys: "; code != 1 || !strings.HasPrefix(stderr, want) || len(stderr) > 400 {
		t.Errorf("--field rocm.LONG: exit %d, stderr %.400q (%d bytes); want exit 1 and %q…", code, stderr, len(stderr), want)
	}
	// help help is help's own help.
	for _, args := range [][]string{{"help", "help"}, {"help", "--help"}} {
		code, stdout, stderr := runProbe(t, bin, dir, env, args...)
		if code != 0 || !strings.HasPrefix(stdout, "Usage: aorta-probe help [SUBCOMMAND]\n") || stderr != "" {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %q", args, code, stdout, stderr)
		}
	}
	code, stdout, _ := runProbe(t, bin, dir, env, "capture", "--help")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: aorta-probe capture ARCHIVE") {
		t.Errorf("capture --help: exit %d, stdout %.60q", code, stdout)
	}
	// Their help texts are written as every other: a failed write is exit 1.
	if full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0); err == nil {
		defer full.Close()
		for _, tc := range []struct{ cmd, args string }{{"aorta-probe help", "help help"}, {"aorta-probe capture", "capture --help"}} {
			cmd := exec.Command(bin, strings.Fields(tc.args)...)
			cmd.Dir, cmd.Env, cmd.Stdout = dir, env, full
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			want := tc.cmd + ": failed to write to stdout: [Errno 28] No space left on device\n"
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || stderr.String() != want {
				t.Errorf("%s >/dev/full: %v, stderr %q; want exit 1 and %q", tc.args, err, stderr.String(), want)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a usage error wrote %v", entries)
	}
}

// TestE2EPythonMustExist: an explicit --python that names no interpreter
// is a usage error before anything is collected (docs/python.md): a
// missing path, a directory, a bare name not on PATH; under --root DIR a
// bare name. A replay takes any --python (the captured machine's).
func TestE2EPythonMustExist(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--python", "/nonexistent/python3", "--summary"}, "--python: [Errno 2] No such file or directory: '/nonexistent/python3'"},
		{[]string{"--python=/nonexistent/python3", "x.json"}, "--python: [Errno 2] No such file or directory: '/nonexistent/python3'"},
		{[]string{"--python", "venv/bin/python3"}, "--python: [Errno 2] No such file or directory: 'venv/bin/python3'"},
		{[]string{"--python", dir}, "--python '" + dir + "' is a directory, not an interpreter"},
		{[]string{"--python", "python3.99-nowhere"}, "--python 'python3.99-nowhere': not found on PATH"},
		{[]string{"--root", dir, "--python", "sh"}, "--python 'sh': a bare name is not looked up under --root '" + dir + "' (no search path); give the interpreter's path"},
	} {
		code, stdout, stderr := runProbe(t, bin, dir, env, tc.args...)
		if want := usageLines("aorta-probe", tc.msg); code != 2 || stdout != "" || stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a usage error wrote %v", entries)
	}
	// A bare name on PATH is taken (sh is no Python: a partial reason).
	code, stdout, _ := runProbe(t, bin, dir, env, "--root", "/", "--python", "sh", "--field", "python_version")
	if code != 0 || stdout != "\"\"\n" {
		t.Errorf("--python sh: exit %d, stdout %q", code, stdout)
	}
	// A replay's --python names the captured machine's interpreter.
	archive := filepath.Join(dir, "node.cap")
	if code, _, stderr := runProbe(t, bin, dir, env, "capture", archive, "--no-python", "-o", filepath.Join(dir, "live.json")); code != 0 {
		t.Fatalf("capture: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runProbe(t, bin, dir, env, "--root", archive, "--python", "/nonexistent/python3", "--field", "partial_reasons[-1]")
	if want := "\"python_version: interpreter /nonexistent/python3: the capture archive holds no answer for it (the capture ran no interpreter)\"\n"; code != 0 || stdout != want {
		t.Errorf("replay --python: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
}

// TestE2EBriefROCmLine: the brief's rocm line names the install the rocm
// block describes and the others found: a root whose only ROCm is the
// distribution's under /usr reads "no install there; found: /usr distro
// …", not as no ROCm; a root with none says so.
func TestE2EBriefROCmLine(t *testing.T) {
	bin := e2eBinary(t)
	env := baseEnv(t)
	rocmLine := func(t *testing.T, root string) string {
		t.Helper()
		code, stdout, stderr := runProbe(t, bin, root, env, "--no-python", "--root", root, "--summary")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := strings.Split(stdout, "\n")
		if i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "  rocm:") }); i == 2 {
			return lines[i]
		}
		t.Fatalf("no rocm line third in\n%s", stdout)
		return ""
	}
	empty := t.TempDir()
	if got, want := rocmLine(t, empty), "  rocm:      None (dev: None)  [describes /opt/rocm: no ROCm install found]"; got != want {
		t.Errorf("no ROCm:\n got %q\nwant %q", got, want)
	}
	debian := t.TempDir()
	lib := filepath.Join(debian, "usr/lib")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(lib, "libamdhip64.so.5.2.21153"), nil, 0o644)
	os.Symlink("libamdhip64.so.5.2.21153", filepath.Join(lib, "libamdhip64.so.5"))
	if got, want := rocmLine(t, debian), "  rocm:      None (dev: None)  [describes /opt/rocm: no install there; found: /usr distro 5.2.21153(library_name)]"; got != want {
		t.Errorf("Debian's ROCm under /usr:\n got %q\nwant %q", got, want)
	}
	// Without probe_provenance the brief is the Python probe's.
	code, stdout, _ := runProbe(t, bin, debian, env, "--no-python", "--root", debian, "--no-provenance", "--summary")
	if code != 0 || !strings.Contains(stdout, "\n  rocm:      None (dev: None)\n") {
		t.Errorf("--no-provenance: exit %d, brief\n%s", code, stdout)
	}
}
