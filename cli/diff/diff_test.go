package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/fleetgen"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
	"aorta-probe/triage"
)

// writeDoc writes the document m as dir/name.
func writeDoc(t *testing.T, dir, name string, m object) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pyjson.Encode(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runMain(args []string, color bool) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, IO{Stdout: &out, Stderr: &errb, Color: color})
	return code, out.String(), errb.String()
}

// TestMainExitStatus is diff(1)'s contract: 0 same, 1 different, 2
// trouble with one line on stderr naming the file and the decoder error.
func TestMainExitStatus(t *testing.T) {
	dir := t.TempDir()
	same := writeDoc(t, dir, "same.json", doc(t, "", "rocm-classic-7.2.json", placed, proven))
	other := writeDoc(t, dir, "other.json", doc(t, "", "rocm-classic-7.2.json", placed, proven, set("rocm.version", "7.1.0")))
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("\x00\x01 not json"), 0o644)
	cases := []struct {
		args   []string
		code   int
		stdout string // prefix
		stderr string // exact
	}{
		{[]string{same, same}, 0, "same place\n", ""},
		{[]string{same, other}, 1, "same place, different software\n", ""},
		{[]string{"--format", "json", same, other}, 1, "{\n  \"format\": \"aorta-probe-diff/1\",\n  \"verdict\": \"same place, different software\"", ""},
		{[]string{"--format=markdown", same, other}, 1, "**Verdict: same place, different software**", ""},
		{[]string{same, garbage}, 2, "", "aorta-probe diff: " + garbage + ": not JSON: Expecting value: line 1 column 1 (char 0)\n"},
		{[]string{filepath.Join(dir, "missing.json"), same}, 2, "", "aorta-probe diff: " + filepath.Join(dir, "missing.json") + ": no such file or directory\n"},
		{[]string{same}, 2, "", "aorta-probe diff: need exactly two documents, got 1\nTry 'aorta-probe diff --help' for help.\n"},
		{[]string{"--format", "yaml", same, same}, 2, "", "aorta-probe diff: --format must be text, markdown or json, got \"yaml\"\nTry 'aorta-probe diff --help' for help.\n"},
		{[]string{"--bogus", same, same}, 2, "", "aorta-probe diff: unknown flag --bogus\nTry 'aorta-probe diff --help' for help.\n"},
		{[]string{"-", "-"}, 2, "", "aorta-probe diff: only one side can be standard input\nTry 'aorta-probe diff --help' for help.\n"},
		{[]string{"--help"}, 0, "Usage: aorta-probe diff", ""},
	}
	for _, c := range cases {
		code, out, errs := runMain(c.args, false)
		if code != c.code || !strings.HasPrefix(out, c.stdout) || errs != c.stderr {
			t.Errorf("diff %q: exit %d, stdout %.80q, stderr %q; want %d, %.80q, %q", c.args, code, out, errs, c.code, c.stdout, c.stderr)
		}
	}
}

func TestMainStdin(t *testing.T) {
	dir := t.TempDir()
	p := writeDoc(t, dir, "a.json", doc(t, "", "rocm-classic-7.2.json", placed))
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errb bytes.Buffer
	code := run([]string{p, "-"}, IO{Stdin: f, Stdout: &out, Stderr: &errb})
	if code != 0 || !strings.Contains(out.String(), "B: - (schema 1.16)") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// TestColour: ANSI colour only when the caller says stdout is a terminal
// (and NO_COLOR is unset: NewIO decides); never in a file.
func TestColour(t *testing.T) {
	dir := t.TempDir()
	p := writeDoc(t, dir, "a.json", doc(t, "", "rocm-classic-7.2.json", placed, proven))
	if _, out, _ := runMain([]string{p, p}, true); !strings.HasPrefix(out, "\x1b[1m\x1b[32m"+"same place"+"\x1b[0m"+"\n") {
		t.Errorf("coloured output starts %q", out[:min(40, len(out))])
	}
	if _, out, _ := runMain([]string{p, p}, false); strings.Contains(out, "\x1b") {
		t.Errorf("colour without a terminal")
	}
	f, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("a regular file reads as a terminal")
	}
	t.Setenv("NO_COLOR", "")
	if NewIO(os.Stdin, os.Stdout, os.Stderr).Color {
		t.Errorf("NO_COLOR set (empty) still colours")
	}
}

// TestMainSchemaNote: diff compares a document validate finds problems in
// (a wrong-typed field is still an env document), with one stderr note
// per such file; the exit status is the comparison's. Fleet notes the
// same way.
func TestMainSchemaNote(t *testing.T) {
	dir := t.TempDir()
	good := writeDoc(t, dir, "good.json", doc(t, "", "rocm-classic-7.2.json", placed, proven))
	bad := writeDoc(t, dir, "bad.json", doc(t, "", "rocm-classic-7.2.json", placed, proven, set("rocm.version", pyjson.Number("3")), set("hostname", "x")))
	code, out, errs := runMain([]string{good, bad}, false)
	if want := "aorta-probe diff: " + bad + ": 2 schema problems (run aorta-probe validate " + bad + ")\n"; code != 1 || errs != want {
		t.Errorf("diff good bad: exit %d, stderr %q; want 1, %q", code, errs, want)
	}
	if !strings.HasPrefix(out, "same place, different software\n") {
		t.Errorf("diff good bad: stdout %.80q", out)
	}
	one := writeDoc(t, dir, "one.json", doc(t, "", "rocm-classic-7.2.json", placed, set("hostname", "x")))
	_, _, errs = runMain([]string{"--fleet", good, good, one}, false)
	if want := "aorta-probe diff: " + one + ": 1 schema problem (run aorta-probe validate " + one + ")\n"; errs != want {
		t.Errorf("diff --fleet: stderr %q, want %q", errs, want)
	}
}

// TestMainOlderKeyOrder: a 1.16 document of an older aorta revision
// (therock last, after partial_reasons, no probe_provenance) is a valid
// document: diff compares it with the newest order without a schema note
// and finds no difference in the key order itself.
func TestMainOlderKeyOrder(t *testing.T) {
	dir := t.TempDir()
	tr, _ := golden(t, "rocm-classic-7.2.json").Get("therock")
	newer := writeDoc(t, dir, "newer.json", doc(t, "", "rocm-classic-7.2.json", placed, del("probe_provenance")))
	older := writeDoc(t, dir, "older.json", doc(t, "", "rocm-classic-7.2.json", placed, del("probe_provenance"), del("therock"), set("therock", tr)))
	if b, _ := os.ReadFile(older); !strings.Contains(string(b), "],\n  \"therock\": {") {
		t.Fatalf("older.json does not have therock last:\n%.300s", b[len(b)-600:])
	}
	code, out, errs := runMain([]string{newer, older}, false)
	if code != 0 || errs != "" {
		t.Errorf("diff newer older: exit %d, stderr %q, stdout %.200q", code, errs, out)
	}
}

func TestDiffEnvMarkers(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, env []string) string {
		p := filepath.Join(dir, name)
		b, err := json.MarshalIndent(triage.CollectEnvNames(env), "", "  ")
		if err == nil {
			err = os.WriteFile(p, append(b, '\n'), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	local := write("local.json", []string{"PATH=/bin", "BUCK2_DAEMON_UUID=u", "BUCK_SCRATCH_PATH=buck-out/a", "TMPDIR=/tmp/x"})
	remote := write("remote.json", []string{"PATH=/bin", "RE_WORKER_ID=w", "BUCK_SCRATCH_PATH=buck-out/b", "TMPDIR=/tmp/y"})
	code, out, errs := runMain([]string{"--env-markers", local, remote}, false)
	want := "variable names differ: 1 only in A, 1 only in B, 3 in both\nA: " + local + "\nB: " + remote +
		"\n\nOnly in A\n  BUCK2_DAEMON_UUID\n\nOnly in B\n  RE_WORKER_ID\n\nMarker values that differ\n  BUCK_SCRATCH_PATH: \"buck-out/a\" -> \"buck-out/b\"\n"
	if code != 1 || out != want || errs != "" {
		t.Errorf("exit %d\n%s\nwant\n%s%s", code, out, want, errs)
	}
	// --format markdown, which --env-markers does not offer, is a usage
	// error, not the text under another name.
	if code, md, errs := runMain([]string{"--env-markers", "--format", "markdown", local, remote}, false); code != 2 || md != "" ||
		errs != "aorta-probe diff: --env-markers writes text or json, not markdown\nTry 'aorta-probe diff --help' for help.\n" {
		t.Errorf("markdown: exit %d, stdout %q, stderr %q; want a usage error", code, md, errs)
	}
	if code, out, _ := runMain([]string{"--env-markers", local, local}, false); code != 0 || !strings.HasPrefix(out, "same variable names (4)") {
		t.Errorf("same: exit %d %s", code, out)
	}
	if code, out, _ := runMain([]string{"--env-markers", "--format", "json", local, remote}, false); code != 1 || !strings.Contains(out, `"only_in_b": [
    "RE_WORKER_ID"
  ]`) {
		t.Errorf("json: exit %d %s", code, out)
	}
	// An env.json is not an env-names document: exit 2, one line.
	envjson := writeDoc(t, dir, "env.json", doc(t, "", "rocm-classic-7.2.json"))
	if code, _, errs := runMain([]string{"--env-markers", envjson, remote}, false); code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "not an aorta-probe env-names document") {
		t.Errorf("env.json as markers: exit %d %q", code, errs)
	}
}

// TestFleetUnreadable: --fleet with one unreadable document among the
// fleet: exit 2, one stderr line naming it, the outliers still reported.
func TestFleetUnreadable(t *testing.T) {
	tmpl := fleetTemplate(t, nil)
	lib := fleetTemplate(t, map[string]any{"hipblaslt.lib_hash": "sha256:planted"})
	dir := t.TempDir()
	if err := fleetgen.Write(dir, 24, tmpl, map[int][]byte{17: lib}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "node-9999.json"), []byte("{"), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"--fleet", dir}, IO{Stdout: &out, Stderr: &errb})
	wantErr := "aorta-probe diff: " + filepath.Join(dir, "node-9999.json") + ": not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)\n"
	if code != 2 || errb.String() != wantErr || !strings.Contains(out.String(), "node-0017.json: 1 field") {
		t.Errorf("exit %d stderr %q\n%s", code, errb.String(), out.String())
	}
}

// TestFleetStderrCut: unreadable documents and documents with schema
// problems are named on stderr up to three (a list of four whole), then
// one line says how many more; --all names every one (issue 28: a fleet
// where every document fails printed one line per file).
func TestFleetStderrCut(t *testing.T) {
	tmpl := fleetTemplate(t, nil)
	odd := fleetTemplate(t, map[string]any{"rocm.version": 3})
	dir := t.TempDir()
	planted := map[int][]byte{}
	for i := range 6 {
		planted[i] = odd
	}
	if err := fleetgen.Write(dir, 20, tmpl, planted); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("zz-%d.json", i)), []byte("{"), 0o644)
	}
	var out, errb bytes.Buffer
	code := run([]string{"--fleet", dir}, IO{Stdout: &out, Stderr: &errb})
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if code != 2 || len(lines) != 8 ||
		lines[3] != "aorta-probe diff: 5 of 25 documents could not be read (2 not shown; --all lists them)" ||
		!strings.HasSuffix(lines[4], "node-0000.json: 1 schema problem (run aorta-probe validate "+filepath.Join(dir, "node-0000.json")+")") ||
		lines[7] != "aorta-probe diff: … and 3 more documents with schema problems (--all lists them; aorta-probe validate says what)" {
		t.Errorf("exit %d, stderr:\n%s", code, errb.String())
	}
	errb.Reset()
	code = run([]string{"--fleet", "--all", dir}, IO{Stdout: &out, Stderr: &errb})
	if n := strings.Count(errb.String(), "\n"); code != 2 || n != 11 {
		t.Errorf("--all: exit %d, %d stderr lines, want 11:\n%s", code, n, errb.String())
	}
}
