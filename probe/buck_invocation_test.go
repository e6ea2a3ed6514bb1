package probe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"aorta-probe/buck"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

// fakeBin is a directory holding links to the chosen fakes of
// testdata/fakebuck2 (buck2, hg, git), so a test decides what which()
// finds.
func fakeBin(t *testing.T, tools ...string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := filepath.Abs("../testdata/fakebuck2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if err := os.Symlink(filepath.Join(src, tool), filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeProject is a Buck project (a .buckconfig) with an app/ directory,
// and files under .fakebuck2/ that steer the fake (see its header).
func fakeProject(t *testing.T, files map[string]string) (root, app string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if files == nil {
		files = map[string]string{}
	}
	files[".buckconfig"] += ""
	testtree.Files(t, root, files)
	app = filepath.Join(root, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, app
}

// collectBuck runs a whole collection on this machine with the fakes first
// on the search path and the given environment; every command gets a
// HOME of its own (homeRunner).
func collectBuck(t *testing.T, bin, cwd string, b BuckOptions, env map[string]string) *schema.Snapshot {
	t.Helper()
	// Only a test that sets the Buck timeout is about timeouts; the others
	// must not race the clock on a loaded machine.
	var runner machine.Runner = patientRunner{t}
	if b.Timeout != 0 {
		runner = machine.ExecRunner{}
	}
	return Collect(context.Background(), Options{
		Seams: machine.Seams{
			Root: "/", Path: hermeticPath(t, bin), Cwd: cwd, Runner: withEnv(runner, "HOME="+t.TempDir()),
			Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		},
		Now: fixedNow, Buck: b,
		// The Buck rows need no interpreter; /usr/bin/python3 may import a real torch.
		Python: PythonOptions{Disabled: true},
	})
}

// envRunner adds NAME=VALUE pairs to every command's environment (they
// win over the test process's own): what t.Setenv would give the fake
// tools, without touching the process, so that the tests using it may
// run in parallel. The fake buck2 stops its project search at $HOME and
// keeps its daemon directory under it.
type envRunner struct {
	machine.Runner
	env []string
}

func withEnv(r machine.Runner, env ...string) machine.Runner { return envRunner{r, env} }

func (r envRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	c.Env = append(slices.Clip(c.Env), r.env...)
	return r.Runner.Run(ctx, c)
}

// buckReasons are the reasons of the Buck rows.
func buckReasons(snap *schema.Snapshot) []string {
	var out []string
	for _, r := range snap.PartialReasons {
		if strings.HasPrefix(r, "buck_invocation:") || strings.HasPrefix(r, "library_introspection:") || strings.HasPrefix(r, "build_system") {
			out = append(out, r)
		}
	}
	return out
}

func ctxOf(t *testing.T, raws ...string) buck.Context {
	t.Helper()
	var opts []buck.Option
	for _, r := range raws {
		o, err := buck.ParseOption(r)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, o)
	}
	c, err := buck.NewContext(opts, nil, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const unconfirmed = "buck_invocation: --buck-target was supplied without explicit Buck context options or --buck-default-context; the default Buck invocation context was not confirmed"

func TestBuckNotRequested(t *testing.T) {
	t.Parallel()
	_, app := fakeProject(t, map[string]string{})
	snap := collectBuck(t, fakeBin(t, "buck2", "hg", "git"), app, BuckOptions{}, nil)
	if got := pyjson.Encode(snap.BuckInvocation); !bytes.Equal(got, pyjson.Encode(schema.NotRequestedBuckInvocation())) {
		t.Errorf("block %s", got)
	}
	if len(buckReasons(snap)) != 0 || len(snap.LibraryIntrospection) != 0 || len(snap.LibraryIntrospectionAlternates) != 0 {
		t.Errorf("reasons %q entries %v", buckReasons(snap), snap.LibraryIntrospection)
	}
	if snap.BuildSystem.Kind != "buck2" || *snap.BuildSystem.Revision != "abc1234+" {
		t.Errorf("build_system %s", pyjson.Encode(snap.BuildSystem))
	}
	pl := snap.Provenance.Placement.LikelyExecutionPlatform
	if snap.ExecutionContext.LikelyExecutionPlatform != nil || pl.Reason == nil || !strings.HasPrefix(*pl.Reason, "not requested") {
		t.Errorf("platform %s", pyjson.Encode(pl))
	}
	// A library caller's context without a target is ignored, with a reason.
	snap = collectBuck(t, fakeBin(t), app, BuckOptions{Context: buck.Context{DefaultConfirmed: true}}, nil)
	if got := buckReasons(snap); !slices.Equal(got, []string{"buck_invocation: context options were supplied without a Buck target and were ignored"}) {
		t.Errorf("reasons %q", got)
	}
}

func TestBuckSuccess(t *testing.T) {
	t.Parallel()
	_, app := fakeProject(t, map[string]string{})
	ctx := ctxOf(t, "mode=@root//mode/debug", "config=service.token=private-placeholder", "modifier=//constraints:linux")
	snap := collectBuck(t, fakeBin(t, "buck2", "hg", "git"), app, BuckOptions{Target: "//app:trainer", Context: ctx}, nil)
	inv := snap.BuckInvocation
	if inv.Status != "success" || inv.ContextSource != "explicit" || *inv.Target != "//app:trainer" {
		t.Errorf("block %s", pyjson.Encode(inv))
	}
	if inv.ConfiguredRootTarget == nil || *inv.ConfiguredRootTarget != "root//app:trainer (prelude//platforms:default#904931f735703749)" {
		t.Errorf("configured_root_target %v", inv.ConfiguredRootTarget)
	}
	if !slices.Equal(inv.ConfigKeys, []string{"service.token"}) || *inv.ContextFingerprint != ctx.Fingerprint() {
		t.Errorf("keys %q fingerprint %v", inv.ConfigKeys, *inv.ContextFingerprint)
	}
	if r := buckReasons(snap); len(r) != 0 {
		t.Errorf("reasons %q", r)
	}
	want := `[
  {
    "name": "hipblaslt",
    "source": "buck",
    "revision": "abc1234+",
    "target": "root//third-party/rocm:hipblaslt_lib",
    "configured_target": "root//third-party/rocm:hipblaslt_lib (prelude//platforms:default#904931f735703749)"
  },
  {
    "name": "rccl",
    "source": "buck",
    "revision": "abc1234+",
    "target": "root//third-party/rocm:rccl_lib",
    "configured_target": "root//third-party/rocm:rccl_lib (prelude//platforms:default#904931f735703749)"
  }
]`
	if got := string(pyjson.Encode(snap.LibraryIntrospection)); got != want {
		t.Errorf("entries\n%s", got)
	}
	if len(snap.LibraryIntrospectionAlternates) != 2 {
		t.Errorf("alternates %s", pyjson.Encode(snap.LibraryIntrospectionAlternates))
	}
	if p := snap.ExecutionContext.LikelyExecutionPlatform; p == nil || *p != "prelude//platforms:default" {
		t.Errorf("likely_execution_platform %v", p)
	}
	// The config value is nowhere in the document, provenance included;
	// the cquery ran in the repo root with the target as one element.
	doc := pyjson.Encode(snap)
	if bytes.Contains(doc, []byte("private-placeholder")) {
		t.Error("config value leaked into the document")
	}
	root := snap.BuildSystem.RepoRoot
	var cq [][]string
	for _, c := range snap.Provenance.Commands {
		if len(c.Argv) > 1 && c.Argv[1] == "cquery" {
			cq = append(cq, c.Argv)
			if c.Dir == nil || *c.Dir != root {
				t.Errorf("cquery ran in %v, want %s", c.Dir, root)
			}
		}
	}
	if len(cq) != 2 || !slices.Equal(cq[0][2:], []string{"@root//mode/debug", "-c", "service.token=<redacted>", "-m", "//constraints:linux", "deps(%s)", "//app:trainer", "--json"}) {
		t.Errorf("cquery argv %q", cq)
	}
}

func TestBuckDefaultConfirmedAndRevisions(t *testing.T) {
	t.Parallel()
	_, app := fakeProject(t, map[string]string{".fakebuck2/hg.rc": "255", ".fakebuck2/exec.platform": "<legacy_global_exec_platform>"})
	snap := collectBuck(t, fakeBin(t, "buck2", "hg", "git"), app, BuckOptions{Target: "//app:trainer", Context: buck.Context{DefaultConfirmed: true}}, nil)
	if snap.BuckInvocation.ContextSource != "default_confirmed" || *snap.BuckInvocation.ContextFingerprint != "sha256:8a7386fb9a191810ec0f4bc9fa17e2621fc9779c29de846562c423516e3ae0fe" {
		t.Errorf("block %s", pyjson.Encode(snap.BuckInvocation))
	}
	if len(buckReasons(snap)) != 0 {
		t.Errorf("reasons %q", buckReasons(snap))
	}
	// hg failed (rc 255, no output), so git answered.
	if *snap.BuildSystem.Revision != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("revision %v", *snap.BuildSystem.Revision)
	}
	if p := snap.ExecutionContext.LikelyExecutionPlatform; p == nil || *p != "<legacy_global_exec_platform>" {
		t.Errorf("platform %v", p)
	}
}

func TestBuckNotDetected(t *testing.T) {
	t.Parallel()
	// No buck2 at all.
	outside := t.TempDir()
	snap := collectBuck(t, fakeBin(t, "hg"), outside, BuckOptions{Target: "//app:trainer"}, nil)
	want := []string{
		unconfirmed,
		"library_introspection: --buck-target //app:trainer supplied but build_system.kind='none'; running anyway",
		"library_introspection: buck2 not on PATH; --buck-target //app:trainer ignored",
	}
	if got := buckReasons(snap); !slices.Equal(got, want) {
		t.Errorf("reasons\n%q\nwant\n%q", got, want)
	}
	if snap.BuckInvocation.Status != "buck_not_detected" || *snap.BuckInvocation.ContextFingerprint != "sha256:6d7aca0beec2911cea10bdf5b409157861322cd6d07a06864c46ec4c16958d0e" {
		t.Errorf("block %s", pyjson.Encode(snap.BuckInvocation))
	}
	if len(snap.Provenance.Commands) != 0 && slices.ContainsFunc(snap.Provenance.Commands, func(c schema.CommandRecord) bool { return strings.Contains(c.Argv[0], "buck2") }) {
		t.Error("ran buck2")
	}

	// buck2 present but the cwd is outside a project: the cquery still
	// runs (in the cwd) and fails the way buck2 does.
	snap = collectBuck(t, fakeBin(t, "buck2"), outside, BuckOptions{Target: "//app:trainer", Context: buck.Context{DefaultConfirmed: true}}, nil)
	want = []string{
		"library_introspection: --buck-target //app:trainer supplied but build_system.kind='none'; running anyway",
		"library_introspection: buck2 cquery deps(//app:trainer) exited 2 (stderr: Command failed: Couldn't find a buck project root for directory `" + outside + "`. Expected to find a .buckconfig file.)",
	}
	if got := buckReasons(snap); !slices.Equal(got, want) {
		t.Errorf("reasons\n%q\nwant\n%q", got, want)
	}
	if snap.BuckInvocation.Status != "buck_not_detected" || snap.BuildSystem.Kind != "none" {
		t.Errorf("status %s kind %s", snap.BuckInvocation.Status, snap.BuildSystem.Kind)
	}
}

func TestBuckNotDetectedButQueried(t *testing.T) {
	t.Parallel()
	// buck2 root fails (rc 1), so kind is none, yet the cquery succeeds:
	// buck_not_detected beats success (docs/buck2.md#3-the-buck-blocks).
	_, app := fakeProject(t, map[string]string{".fakebuck2/root.rc": "1"})
	snap := collectBuck(t, fakeBin(t, "buck2"), app, BuckOptions{Target: "//app:trainer", Context: buck.Context{DefaultConfirmed: true}}, nil)
	if snap.BuckInvocation.Status != "buck_not_detected" || len(snap.LibraryIntrospection) != 2 || snap.LibraryIntrospection[0].Revision != nil {
		t.Errorf("status %s entries %s", snap.BuckInvocation.Status, pyjson.Encode(snap.LibraryIntrospection))
	}
	if snap.ExecutionContext.LikelyExecutionPlatform == nil {
		t.Error("no execution platform although buck2 answered")
	}
}

func TestBuckFailures(t *testing.T) {
	const what = "library_introspection: buck2 cquery deps(//app:trainer)"
	tests := []struct {
		name    string
		files   map[string]string
		timeout time.Duration
		want    string
		why     string
	}{
		{"exit with stderr", map[string]string{".fakebuck2/deps.rc": "2", ".fakebuck2/deps.stderr": "invalid service.token=private-placeholder\n"},
			0, what + " exited 2 (stderr: invalid service.token=<redacted>)", "not resolved: the deps cquery exited 2"},
		{"exit without stderr", map[string]string{".fakebuck2/deps.rc": "1"}, 0, what + " exited 1 (stderr: (empty))", "not resolved: the deps cquery exited 1"},
		{"long stderr", map[string]string{".fakebuck2/deps.rc": "3", ".fakebuck2/deps.stderr": strings.Repeat("é", 400)}, 0,
			what + " exited 3 (stderr: " + strings.Repeat("é", 300) + ")", "not resolved: the deps cquery exited 3"},
		{"not json", map[string]string{".fakebuck2/deps.rc": "0", ".fakebuck2/deps.stdout": "not-json"}, 0,
			what + " returned non-JSON output (Expecting value: line 1 column 1 (char 0))", "not resolved: the deps cquery printed non-JSON output"},
		{"shape", map[string]string{".fakebuck2/deps.rc": "0", ".fakebuck2/deps.stdout": "42\n"}, 0,
			what + " returned unexpected JSON shape (int)", "not resolved: the deps cquery printed JSON of unexpected shape"},
		{"not utf-8", map[string]string{".fakebuck2/deps.rc": "0", ".fakebuck2/deps.stdout": "[\"\xff\"]"}, 0,
			"library_introspection: buck introspection raised (UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 2: invalid start byte)", "not resolved: buck2 printed output that is not UTF-8"},
		{"timeout", map[string]string{".fakebuck2/deps.rc": "0", ".fakebuck2/deps.sleep": "5"}, time.Second,
			what + " timed out after 1s (raise --buck-timeout if needed)", "not resolved: the deps cquery timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.timeout == 0 {
				// The timeout case runs alone: every command it runs has
				// the real 1 s timeout.
				t.Parallel()
			}
			_, app := fakeProject(t, tt.files)
			ctx := ctxOf(t, "config=service.token=private-placeholder")
			snap := collectBuck(t, fakeBin(t, "buck2"), app, BuckOptions{Target: "//app:trainer", Context: ctx, Timeout: tt.timeout}, nil)
			if got := buckReasons(snap); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("reasons\n%q\nwant\n%q", got, tt.want)
			}
			if snap.BuckInvocation.Status != "failure" || snap.BuckInvocation.ConfiguredRootTarget != nil || len(snap.LibraryIntrospection) != 0 {
				t.Errorf("block %s", pyjson.Encode(snap.BuckInvocation))
			}
			if r := snap.Provenance.Placement.LikelyExecutionPlatform.Reason; r == nil || *r != tt.why {
				t.Errorf("platform reason %s, want %s", golden.OrNull(r), tt.why)
			}
			if bytes.Contains(pyjson.Encode(snap), []byte("private-placeholder")) {
				t.Error("config value leaked")
			}
		})
	}
}

func TestBuckLaunchFailure(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	// A buck2 whose interpreter does not exist: found by which, fails at exec.
	if err := testtree.WriteFile(filepath.Join(bin, "buck2"), []byte("#!/nonexistent/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, app := fakeProject(t, map[string]string{})
	snap := collectBuck(t, bin, app, BuckOptions{Target: "//app:trainer", Context: buck.Context{DefaultConfirmed: true}}, nil)
	want := []string{
		"library_introspection: --buck-target //app:trainer supplied but build_system.kind='none'; running anyway",
		"library_introspection: buck2 cquery deps(//app:trainer) failed to launch ([Errno 2] No such file or directory: '" + filepath.Join(bin, "buck2") + "')",
	}
	if got := buckReasons(snap); !slices.Equal(got, want) {
		t.Errorf("reasons\n%q\nwant\n%q", got, want)
	}
	if snap.BuckInvocation.Status != "buck_not_detected" {
		t.Errorf("status %s", snap.BuckInvocation.Status)
	}
}

func TestExecutionPlatformAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  map[string]string
		value  string
		reason string
	}{
		{"remote platform", map[string]string{".fakebuck2/exec.platform": "root//platforms:re"}, "root//platforms:re", ""},
		{"unresolved", map[string]string{".fakebuck2/exec.platform": "<NONE>"}, "",
			"not resolved: buck2 resolved no execution platform for root//app:trainer (prelude//platforms:default#904931f735703749) (<NONE>: resolution failed)"},
		{"fails", map[string]string{".fakebuck2/exec.rc": "3", ".fakebuck2/exec.stderr": "Command failed: -c a.b=secret\n"}, "",
			"not resolved: the execution-platform cquery exited 3 (stderr: Command failed: -c a.b=<redacted>)"},
		{"garbage", map[string]string{".fakebuck2/exec.rc": "0", ".fakebuck2/exec.stdout": "[]"}, "", "not resolved: buck2 printed JSON of unexpected shape (list)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, app := fakeProject(t, tt.files)
			snap := collectBuck(t, fakeBin(t, "buck2"), app, BuckOptions{Target: "//app:trainer", Context: ctxOf(t, "config=a.b=secret")}, nil)
			ev := snap.Provenance.Placement.LikelyExecutionPlatform
			got := snap.ExecutionContext.LikelyExecutionPlatform
			if tt.value != "" {
				if got == nil || *got != tt.value || ev.Source == nil || !strings.Contains(*ev.Source, "-c a.b=<redacted> %s //app:trainer -a ^buck\\.execution_platform$ --json") {
					t.Errorf("value %s source %s", golden.OrNull(got), golden.OrNull(ev.Source))
				}
				return
			}
			if got != nil || ev.Reason == nil || *ev.Reason != tt.reason {
				t.Errorf("value %s reason %s\nwant %s", golden.OrNull(got), golden.OrNull(ev.Reason), tt.reason)
			}
		})
	}
}

// timeoutRunner answers every command whose argv[1] is in slow with a
// timeout, and runs the rest.
type timeoutRunner struct{ slow []string }

func (r timeoutRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	if len(c.Argv) > 1 && slices.Contains(r.slow, c.Argv[1]) {
		return machine.Result{Err: machine.ErrTimeout, ExitCode: -9}
	}
	return machine.ExecRunner{}.Run(ctx, c)
}

func TestFakeBuck2FailsLoudly(t *testing.T) {
	for _, argv := range [][]string{{"build", "//x:y"}, {"cquery", "--bogus", "deps(//x:y)"}, {"cquery", "-a", "^buck\\.type$", "//x:y"}, {"cquery", "deps(%s)", "--json"}, {"cquery", "-c", "novalue", "deps(%s)", "//x", "--json"}, {"--version", "extra"}, {"root", "--dir", "/"}} {
		fake, _ := filepath.Abs("../testdata/fakebuck2/buck2")
		cmd := exec.Command(fake, argv...)
		cmd.Dir = t.TempDir()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errorsAs(err, &ee) || ee.ExitCode() != 99 || !strings.HasPrefix(stderr.String(), "fakebuck2: unexpected argv:") {
			t.Errorf("%q: err %v stderr %q", argv, err, stderr.String())
		}
	}
}

func TestLibraryAlternates(t *testing.T) {
	entries := []schema.LibraryEntry{{Name: "pytorch"}, {Name: "hipblaslt"}, {Name: "rccl"}, {Name: "ainic"}}
	hip := schema.GemmLibrary{RocmReleaseTweak: schema.Str(""), PackageVersion: schema.Str("1.1.0-abc"), LibHash: schema.Str("sha256:aa")}
	rccl := schema.RCCL{Version: schema.Str("2.27.7"), LibHash: schema.Str("sha256:bb")}
	got := string(pyjson.EncodeCompact(libraryAlternates(entries, hip, rccl)))
	want := `[{"name": "hipblaslt", "source": "package", "revision": null, "package_version": "1.1.0-abc", "lib_hash": "sha256:aa"}, {"name": "rccl", "source": "package", "revision": "2.27.7", "package_version": "2.27.7", "lib_hash": "sha256:bb"}]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	hip.RocmReleaseTweak = schema.Str("6.4.1-120")
	// Blocks not captured (pending rows, deadline) give all-null identities.
	got = string(pyjson.EncodeCompact(libraryAlternates(entries[1:2], hip, schema.RCCL{})))
	if !strings.Contains(got, `"revision": "6.4.1-120"`) {
		t.Errorf("tweak: %s", got)
	}
	got = string(pyjson.EncodeCompact(libraryAlternates(entries[2:3], schema.NotCapturedGemmLibrary(), schema.RCCL{NetPluginMode: "unknown"})))
	if got != `[{"name": "rccl", "source": "package", "revision": null, "package_version": null, "lib_hash": null}]` {
		t.Errorf("not captured: %s", got)
	}
	if got := libraryAlternates(nil, hip, rccl); got == nil || len(got) != 0 {
		t.Errorf("no entries: %v", got)
	}
}

func errorsAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// fake runs the fake buck2 in dir and returns stdout, stderr and the exit status.
func fake(t *testing.T, dir string, env []string, argv ...string) (string, string, int) {
	t.Helper()
	bin, _ := filepath.Abs("../testdata/fakebuck2/buck2")
	cmd := exec.Command(bin, argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errorsAs(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// TestFakeBuck2Shapes checks that the fake's answers have the shapes of
// docs/buck2.md#6-how-this-was-tested, read back with the probe's own
// parsers.
func TestFakeBuck2Shapes(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	root, app := fakeProject(t, map[string]string{})
	outside := t.TempDir()
	type want struct {
		stdout, stderr string
		code           int
	}
	cfg := " (prelude//platforms:default#904931f735703749)"
	tests := []struct {
		name string
		dir  string
		env  []string
		argv []string
		want want
	}{
		{"stamped version", outside, nil, []string{"--version"}, want{"buck2 2025-05-06-201beb86106fecdc84e30260b0f1abb5bf576988\n", "", 0}},
		{"unstamped version", outside, []string{"FAKEBUCK2_VERSION=fee4e223d46cb9104bc2d39c869427ce7e7347a9 <build-id>"}, []string{"-V"}, want{"buck2 fee4e223d46cb9104bc2d39c869427ce7e7347a9 <build-id>\n", "", 0}},
		{"root", app, nil, []string{"root"}, want{root + "\n", "", 0}},
		{"project root", app, nil, []string{"root", "--kind", "project"}, want{root + "\n", "", 0}},
		{"daemon root", app, nil, []string{"root", "-k", "daemon"}, want{"/home/u/.buck/buckd/" + strings.TrimPrefix(root, "/") + "/v2\n", "", 0}},
		{"no buckconfig kind", app, nil, []string{"root", "--kind", "buckconfig"}, want{"", "error: invalid value 'buckconfig' for '--kind <KIND>'\n  [possible values: cell, project, daemon]\n\nFor more information, try '--help'.\n", 3}},
		{"outside", outside, nil, []string{"root"}, want{"", "Command failed: Couldn't find a buck project root for directory `" + outside + "`. Expected to find a .buckconfig file.\n", 2}},
		{"outside cquery", outside, nil, []string{"cquery", "deps(%s)", "//x:y", "--json"}, want{"", "Command failed: Couldn't find a buck project root for directory `" + outside + "`. Expected to find a .buckconfig file.\n", 2}},
		{"plain lines", app, nil, []string{"cquery", "//x:y"}, want{"root//x:y" + cfg + "\n", "Build ID: 5444dcc8-5a74-4844-9c2d-4dd01e962f36\n", 0}},
		{"plain json", app, nil, []string{"cquery", "//x:y", "--json"}, want{"[\n  \"root//x:y" + cfg + "\"\n]\n", "Build ID: 5444dcc8-5a74-4844-9c2d-4dd01e962f36\n", 0}},
		{"no placeholder", app, nil, []string{"cquery", "deps(//x)", "a", "b", "--json"}, want{"", "Command failed: Query args supplied without any `%s` placeholder in the query, got args `a`, `b`\n", 3}},
		{"placeholder in arg", app, nil, []string{"cquery", "deps(%s)", "a%s", "--json"}, want{"", "Command failed: Placeholder `%s` in query argument `a%s`\n", 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := fake(t, tt.dir, tt.env, tt.argv...)
			if (want{out, errOut, code}) != tt.want {
				t.Errorf("got  %q %q %d\nwant %q %q %d", out, errOut, code, tt.want.stdout, tt.want.stderr, tt.want.code)
			}
		})
	}
	// JSON shapes, read back with the probe's parsers.
	out, _, _ := fake(t, app, nil, "cquery", "deps(//app:trainer)", "--json")
	labels, err := buck.ParseLabels(out)
	if err != nil || len(labels) != 5 || !strings.HasPrefix(out, "[\n  \"") {
		t.Fatalf("plain deps: %v %q", err, out)
	}
	for _, l := range labels {
		if _, ok := buck.ParseLabel(l); !ok {
			t.Errorf("not a configured label: %q", l)
		}
	}
	out, _, _ = fake(t, app, nil, "cquery", "deps(%s)", "//a:a", "//b:b", "--json")
	if labels, err := buck.ParseLabels(out); err != nil || len(labels) != 10 || !strings.HasPrefix(out, "{\n  \"//a:a\": [\n    \"") {
		t.Errorf("multi-query: %v %q", err, out)
	}
	out, _, _ = fake(t, app, nil, "cquery", "%s", "//a:a", "//b:b", "-a", `^buck\.execution_platform$`, "--json")
	if p, err := buck.ParseExecutionPlatform(out, "//b:b"); err != nil || p != "prelude//platforms:default" {
		t.Errorf("attributes: %v %q", err, out)
	}
}

// TestBuckEchoedValueForms: buck2 (the fake, KEY.echo) echoes each -c
// KEY=VALUE on stderr, whole and the value alone at the end. Values with
// line ends, tabs, edge whitespace and bytes that are not UTF-8 are
// redacted although decoding normalises line ends, the reason strips the
// text, and a decode error would quote a byte: no part of a value reaches
// the document, for the deps cquery (a reason) and the execution-platform
// cquery (probe_provenance.placement).
func TestBuckEchoedValueForms(t *testing.T) {
	t.Parallel()
	const (
		what = "library_introspection: buck2 cquery deps(//app:trainer)"
		echo = "Error: invalid config -c sec.k=<redacted>\nrejected value: <redacted>"
	)
	for _, tc := range []struct{ name, value string }{
		{"crlf", "Tok1x7q\r\nWz8k2pv"},
		{"cr", "Tok1x7q\rWz8k2pv"},
		{"lf", "Tok1x7q\nWz8k2pv"},
		{"tabs", "\tTok1x7q\tWz8k2pv\t"},
		{"trailing crlf", "Tok1x7q Wz8k2pv\r\n"},
		{"lone trailing cr", "Tok1x7qWz8k2pv\r"},
		{"not utf-8", "Tok1x7q\xffWz8k2pv"},
		{"cut utf-8 and crlf", "Tok1x7q\xe2\x82\r\nWz8k2pv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxOf(t, "config=sec.k="+tc.value)
			check := func(snap *schema.Snapshot) {
				t.Helper()
				doc := pyjson.Encode(snap)
				dec, err := pyjson.Decode(string(doc))
				if err != nil {
					t.Fatal(err)
				}
				text := string(doc) + fmt.Sprint(dec)
				for _, part := range []string{"Tok1x7q", "Wz8k2pv"} {
					if strings.Contains(text, part) {
						i := strings.Index(string(doc), part)
						t.Errorf("%s leaked: …%s…", part, doc[max(0, i-120):min(len(doc), i+40)])
					}
				}
			}
			_, app := fakeProject(t, map[string]string{".fakebuck2/deps.rc": "2", ".fakebuck2/deps.echo": ""})
			snap := collectBuck(t, fakeBin(t, "buck2"), app, BuckOptions{Target: "//app:trainer", Context: ctx}, nil)
			if got, want := buckReasons(snap), []string{what + " exited 2 (stderr: " + echo + ")"}; !slices.Equal(got, want) {
				t.Errorf("reasons\n%q\nwant\n%q", got, want)
			}
			check(snap)

			_, app = fakeProject(t, map[string]string{".fakebuck2/exec.rc": "2", ".fakebuck2/exec.echo": ""})
			snap = collectBuck(t, fakeBin(t, "buck2"), app, BuckOptions{Target: "//app:trainer", Context: ctx}, nil)
			want := "not resolved: the execution-platform cquery exited 2 (stderr: " + echo + ")"
			if r := snap.Provenance.Placement.LikelyExecutionPlatform.Reason; r == nil || *r != want {
				t.Errorf("platform reason %q, want %q", deref(r), want)
			}
			check(snap)
		})
	}
}
