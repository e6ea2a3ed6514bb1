package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The command line's edges a user hit (issue 31, item 10), each through
// the static binary: the documented `metrics OUT.prom`, the brief and
// the values of a document already written, diff's refusals, one way to
// report a stdout that cannot be written, "did you mean" for flags,
// capture's own prefix and --redact-hostname saying what it left.

// edgeDoc is a capture of the replayed capture-host archive, written to
// dir/node.json, and the archive's path.
func edgeDoc(t *testing.T, bin, dir string, env []string) (doc, archive string) {
	t.Helper()
	archive, err := filepath.Abs("testdata/roots/capture-host.txtar")
	if err != nil {
		t.Fatal(err)
	}
	doc = filepath.Join(dir, "node.json")
	if code, _, errs := runProbe(t, bin, dir, env, "--root", archive, "--no-python", doc); code != 0 {
		t.Fatalf("capture: exit %d\n%s", code, errs)
	}
	return doc, archive
}

// TestE2EMetricsFreshProm: docs/fleet.md's `aorta-probe metrics
// /var/lib/…/aorta-probe.prom` is a fresh capture written to that file,
// also when the file is there from a previous run (it was read as DOC);
// a DOC ending in .prom is a usage error, never read.
func TestE2EMetricsFreshProm(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	doc, archive := edgeDoc(t, bin, dir, env)
	_, fromDoc, _ := runProbe(t, bin, dir, env, "metrics", doc)
	prom := filepath.Join(dir, "aorta-probe.prom")
	for _, run := range []string{"first", "again, over the previous run's file"} {
		code, stdout, errs := runProbe(t, bin, dir, env, "metrics", prom, "--root", archive, "--no-python")
		written, _ := os.ReadFile(prom)
		if code != 0 || stdout != "" || errs != "" || !strings.Contains(string(written), "# TYPE aorta_env_info gauge") {
			t.Fatalf("metrics OUT.prom (%s): exit %d, stdout %q, stderr %q, OUT %q", run, code, stdout, errs, written)
		}
		if got, want := stableMetrics(string(written)), stableMetrics(fromDoc); got != want {
			t.Errorf("metrics OUT.prom (%s) differs from metrics DOC:\n%s\n---\n%s", run, got, want)
		}
	}
	code, stdout, errs := runProbe(t, bin, dir, env, "metrics", prom, filepath.Join(dir, "b.prom"))
	want := usageLines("aorta-probe metrics", "DOC '"+prom+"' ends in .prom: metrics writes such files and never reads one as a document (DOC comes first, then OUT)")
	if code != 2 || stdout != "" || errs != want {
		t.Errorf("metrics A.prom B.prom: exit %d, stderr %q; want %q", code, errs, want)
	}
	if code, _, errs := runProbe(t, bin, dir, env, "metrics", prom, "-o", filepath.Join(dir, "b.prom")); code != 2 ||
		!strings.Contains(errs, "give the output path once") {
		t.Errorf("metrics OUT.prom -o B.prom: exit %d, stderr %q; want a usage error", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.prom")); err == nil {
		t.Error("a usage error wrote b.prom")
	}
}

// stableMetrics drops the lines that describe the capture, not the place.
func stableMetrics(text string) string {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "aorta_env_captured_timestamp_seconds ") && !strings.HasPrefix(l, "aorta_env_capture_duration_seconds ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestE2ESummaryOfDocument: `--summary DOC` and `--summary -` print the
// brief of a document already written, the same as the capture that
// wrote it printed; `--field PATH DOC` its values; the capture's flags
// beside DOC, an output path and a second DOC are usage errors; a DOC
// that cannot be read is exit 1 and one line.
func TestE2ESummaryOfDocument(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	doc, archive := edgeDoc(t, bin, dir, env)
	code, fresh, errs := runProbe(t, bin, dir, env, "--root", archive, "--no-python", "--summary")
	if code != 0 || !strings.HasPrefix(fresh, "  runtime:   ") {
		t.Fatalf("--summary of a capture: exit %d, stderr %q", code, errs)
	}
	if code, got, errs := runProbe(t, bin, dir, env, "--summary", doc); code != 0 || got != fresh || errs != "" {
		t.Errorf("--summary DOC: exit %d, stderr %q; differs from the capture's brief:\n%s\n---\n%s", code, errs, got, fresh)
	}
	in := exec.Command(bin, "--summary", "-")
	in.Dir, in.Env = dir, env
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in.Stdin = f
	if code, got, errs := runCmd(t, in); code != 0 || got != fresh {
		t.Errorf("--summary - < DOC: exit %d, stderr %q; differs from the capture's brief:\n%s", code, errs, got)
	}
	fields := []string{"--field", "rocm.root", "--field", "partial_reasons[-1]", "--field", "probe_provenance.implementation"}
	_, want, _ := runProbe(t, bin, dir, env, append([]string{"--root", archive, "--no-python"}, fields...)...)
	if code, got, errs := runProbe(t, bin, dir, env, append(fields, doc)...); code != 0 || got != want || errs != "" {
		t.Errorf("--field … DOC: exit %d, stdout %q, stderr %q; want %q", code, got, errs, want)
	}
	if code, got, errs := runProbe(t, bin, dir, env, "--field", "rocm.nope", doc); code != 1 || got != "" || !strings.HasPrefix(errs, "aorta-probe: --field rocm.nope: no key 'nope' in rocm") {
		t.Errorf("--field rocm.nope DOC: exit %d, stdout %q, stderr %q", code, got, errs)
	}
	missing := filepath.Join(dir, "missing.json")
	if code, got, errs := runProbe(t, bin, dir, env, "--summary", missing); code != 1 || got != "" || errs != "aorta-probe: "+missing+": no such file or directory\n" {
		t.Errorf("--summary MISSING: exit %d, stdout %q, stderr %q", code, got, errs)
	}
	// A value the brief cannot read: one line naming where.
	var m map[string]any
	b, _ := os.ReadFile(doc)
	json.Unmarshal(b, &m)
	m["host"].(map[string]any)["kernel_release"] = 5
	odd := filepath.Join(dir, "odd.json")
	b, _ = json.Marshal(m)
	os.WriteFile(odd, b, 0o644)
	if code, got, errs := runProbe(t, bin, dir, env, "--summary", odd); code != 1 || got != "" ||
		!strings.Contains(errs, "at $.host.kernel_release") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--summary of a wrong-typed DOC: exit %d, stdout %q, stderr %q", code, got, errs)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--summary", "--root", archive, doc}, "--root is a capture flag: it applies only without DOC (a fresh capture)"},
		{[]string{"--no-python", "--field", "rocm", doc}, "--no-python is a capture flag: it applies only without DOC (a fresh capture)"},
		{[]string{"--summary", doc, doc}, "unexpected extra argument '" + doc + "' (--summary reads one DOC)"},
		{[]string{"--summary", "-o", "x.json"}, "--summary prints to stdout and takes no output path (got 'x.json')"},
		{[]string{"--summary", ""}, "DOC must be a non-empty path (- for standard input)"},
		{[]string{"capture", "a.cap", "--summary", doc}, "--summary prints to stdout and takes no output path (got '" + doc + "')"},
	} {
		cmd := "aorta-probe"
		if tc.args[0] == "capture" {
			cmd = "aorta-probe capture"
		}
		if code, got, errs := runProbe(t, bin, dir, env, tc.args...); code != 2 || got != "" || errs != usageLines(cmd, tc.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", tc.args, code, got, errs, usageLines(cmd, tc.msg))
		}
	}
}

// TestE2EDiffRefusals: what diff cannot do is a usage error, not another
// output under the name asked for, nor a missing file named "-".
func TestE2EDiffRefusals(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	a := filepath.Join(dir, "a.json")
	if code, _, errs := runProbe(t, bin, dir, env, "env-names", a); code != 0 {
		t.Fatalf("env-names: exit %d %s", code, errs)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"diff", "--env-markers", "--format", "markdown", a, a}, "--env-markers writes text or json, not markdown"},
		{[]string{"diff", "--fleet", "-", a}, "--fleet reads files and directories, not standard input (-)"},
		{[]string{"diff", "--fleet", "--", "-"}, "--fleet reads files and directories, not standard input (-)"},
	} {
		if code, got, errs := runProbe(t, bin, dir, env, tc.args...); code != 2 || got != "" || errs != usageLines("aorta-probe diff", tc.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", tc.args, code, got, errs, usageLines("aorta-probe diff", tc.msg))
		}
	}
	if code, got, _ := runProbe(t, bin, dir, env, "diff", "--env-markers", "--format", "json", a, a); code != 0 || !json.Valid([]byte(got)) {
		t.Errorf("--env-markers --format json: exit %d, %q", code, got)
	}
}

// TestE2EBrokenStdout: every command whose stdout is a pipe nobody reads
// any more (`… | true`) says so in the same one line, CMD: failed to
// write to stdout: [Errno 32] Broken pipe, and exits 1, or 2 for diff and
// validate, whose 1 is an answer (docs/usage.md, "Exit status"); SIGPIPE
// kills none of them, and capture leaves no archive behind.
func TestE2EBrokenStdout(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	doc, archive := edgeDoc(t, bin, dir, env)
	markers := filepath.Join(dir, "markers.json")
	runProbe(t, bin, dir, env, "env-names", markers)
	invalid := filepath.Join(dir, "invalid.json")
	b, _ := os.ReadFile(doc)
	os.WriteFile(invalid, bytes.Replace(b, []byte(`"partial": `), []byte(`"partial": "no", "was": `), 1), 0o644)
	fleet := filepath.Join(dir, "fleet")
	os.Mkdir(fleet, 0o755)
	os.WriteFile(filepath.Join(fleet, "a.json"), b, 0o644)
	empty := t.TempDir()
	capture := filepath.Join(dir, "node.cap")
	quick := []string{"--root", archive, "--no-python"}
	for _, tc := range []struct {
		args   []string
		prefix string
		code   int
	}{
		{quick, "aorta-probe", 1},
		{append([]string{"--summary"}, quick...), "aorta-probe", 1},
		{[]string{"--summary", doc}, "aorta-probe", 1},
		{[]string{"--field", "rocm.root", doc}, "aorta-probe", 1},
		{[]string{"--help"}, "aorta-probe", 1},
		{[]string{"help"}, "aorta-probe", 1},
		{[]string{"help", "help"}, "aorta-probe help", 1},
		{[]string{"capture", capture, "--root", empty, "--no-python"}, "aorta-probe capture", 1},
		{[]string{"capture", "--help"}, "aorta-probe capture", 1},
		{[]string{"env-names"}, "aorta-probe env-names", 1},
		{[]string{"env-names", "--help"}, "aorta-probe env-names", 1},
		{[]string{"metrics", doc}, "aorta-probe metrics", 1},
		{[]string{"labels", doc}, "aorta-probe labels", 1},
		{[]string{"metrics", "--help"}, "aorta-probe metrics", 1},
		{[]string{"validate", invalid}, "aorta-probe validate", 2},
		{[]string{"validate", "--help"}, "aorta-probe validate", 2},
		{[]string{"diff", doc, doc}, "aorta-probe diff", 2},
		{[]string{"diff", "--fleet", fleet}, "aorta-probe diff", 2},
		{[]string{"diff", "--env-markers", markers, markers}, "aorta-probe diff", 2},
		{[]string{"diff", "--format", "markdown", doc, doc}, "aorta-probe diff", 2},
		{[]string{"diff", "--help"}, "aorta-probe diff", 2},
	} {
		code, errs := runBrokenStdout(t, bin, dir, env, tc.args...)
		want := tc.prefix + ": failed to write to stdout: [Errno 32] Broken pipe\n"
		if code != tc.code || errs != want {
			t.Errorf("%q | true: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, want)
		}
	}
	if _, err := os.Stat(capture); err == nil {
		t.Error("capture wrote its archive although the document was not written")
	}
}

// runBrokenStdout runs bin with a stdout whose reader has gone, as
// `bin ARGS | true` once true exited: its exit status (-1: killed by a
// signal) and stderr.
func runBrokenStdout(t *testing.T, bin, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%q had not exited after %v; stderr %q", args, hangGuard, stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatal(err)
	return 0, ""
}

// TestE2EFlagSuggestions: an unknown flag within two edits of one the
// command takes gets "did you mean", as a mistyped subcommand does; one
// far from every flag does not.
func TestE2EFlagSuggestions(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--summry"}, usageLines("aorta-probe", "unknown flag --summry; did you mean --summary?")},
		{[]string{"--no-pyhton", "x.json"}, usageLines("aorta-probe", "unknown flag --no-pyhton; did you mean --no-python?")},
		{[]string{"--deadlin=5s"}, usageLines("aorta-probe", "unknown flag --deadlin; did you mean --deadline?")},
		{[]string{"--bogus"}, usageLines("aorta-probe", "unknown flag --bogus")},
		{[]string{"capture", "a.cap", "--redact-hostnme"}, usageLines("aorta-probe capture", "unknown flag --redact-hostnme; did you mean --redact-hostname?")},
		{[]string{"metrics", "--no-pyton"}, usageLines("aorta-probe metrics", "unknown flag --no-pyton; did you mean --no-python?")},
		{[]string{"diff", "--fleat", "d"}, usageLines("aorta-probe diff", "unknown flag --fleat; did you mean --fleet?")},
		{[]string{"diff", "--fromat=json", "a", "b"}, usageLines("aorta-probe diff", "unknown flag --fromat; did you mean --format?")},
		{[]string{"env-names", "--hepl"}, "aorta-probe env-names: unknown flag --hepl; did you mean --help?\nTry 'aorta-probe env-names --help' for help.\n"},
		{[]string{"validate", "--hlep", "a.json"}, "aorta-probe validate: unknown flag --hlep; did you mean --help?; try 'aorta-probe validate --help'\n"},
	} {
		if code, got, errs := runProbe(t, bin, dir, env, tc.args...); code != 2 || got != "" || errs != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", tc.args, code, got, errs, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a usage error wrote %v", entries)
	}
}

// TestE2ECapturePrefix: capture's failures to write name `aorta-probe
// capture`, as its usage errors do.
func TestE2ECapturePrefix(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	out := filepath.Join(dir, "missing", "x.json")
	code, _, errs := runProbe(t, bin, dir, env, "capture", filepath.Join(dir, "a.cap"), "--root", dir, "--no-python", out)
	if want := "aorta-probe capture: failed to write " + out + ": [Errno 2] No such file or directory: '" + out + "'\n"; code != 1 || errs != want {
		t.Errorf("capture to a missing directory: exit %d, stderr %q; want %q", code, errs, want)
	}
	archive := filepath.Join(dir, "missing", "a.cap")
	code, _, errs = runProbe(t, bin, dir, env, "capture", archive, "--root", dir, "--no-python", filepath.Join(dir, "x.json"))
	if want := "aorta-probe capture: failed to write " + archive + ": "; code != 1 || !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 1 {
		t.Errorf("capture into a missing directory: exit %d, stderr %q; want %q…", code, errs, want)
	}
}

// TestE2ERedactShortHostname: --redact-hostname on a host named "ab"
// (its own UTS namespace) writes the archive and says on stderr that the
// name is left in it; a longer name is replaced without a word. Skipped
// where unshare -u is refused (not root).
func TestE2ERedactShortHostname(t *testing.T) {
	bin := e2eBinary(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	if err := exec.Command(unshare, "--uts", "true").Run(); err != nil {
		t.Skipf("unshare --uts: %v (needs root)", err)
	}
	dir := t.TempDir()
	env := baseEnv(t)
	for _, tc := range []struct{ host, stderr string }{
		{"ab", "aorta-probe capture: --redact-hostname: the host name 'ab' has fewer than 3 characters and is not replaced (every 'ab' in the archive would be)\n"},
		{"abc", ""},
	} {
		archive := filepath.Join(dir, tc.host+".cap")
		cmd := exec.Command(unshare, "--uts", "sh", "-c", `hostname "$0" && exec "$@"`, tc.host,
			bin, "capture", archive, "--redact-hostname", "--root", dir, "--no-python", filepath.Join(dir, tc.host+".json"))
		cmd.Dir, cmd.Env = dir, env
		code, _, errs := runCmd(t, cmd)
		if code != 0 || errs != tc.stderr {
			t.Errorf("host %s: exit %d, stderr %q; want 0 and %q", tc.host, code, errs, tc.stderr)
		}
		if _, err := os.Stat(archive); err != nil {
			t.Errorf("host %s: no archive: %v", tc.host, err)
		}
	}
}
