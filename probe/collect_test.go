package probe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/buck"
	"aorta-probe/internal/archive"
	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

// runnerFunc adapts a function to Runner.
type runnerFunc func(context.Context, machine.Command) machine.Result

func (f runnerFunc) Run(ctx context.Context, c machine.Command) machine.Result { return f(ctx, c) }

// dpkgRoot is a root where amdgpu_driver runs dpkg-query.
func dpkgRoot(t *testing.T) Options {
	dir := t.TempDir()
	for p, f := range map[string]struct {
		data string
		mode os.FileMode
	}{
		"bin/dpkg-query":      {"#!/bin/sh\nexit 99\n", 0o755},
		"var/lib/dpkg/status": {"Package: amdgpu-dkms\nVersion: 1:6.14.14\n", 0o644},
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(f.data), f.mode)
	}
	return Options{
		Seams: machine.Seams{
			Root: dir, Path: []string{filepath.Join(dir, "bin")},
			Env:   func(string) (string, bool) { return "", false },
			Uname: func() (machine.Uname, error) { return machine.Uname{Release: "r", Version: "v", Machine: "m"}, nil },
		},
		Now: fixedNow,
	}
}

func reasonIndex(reasons []string, prefix string) int {
	return slices.IndexFunc(reasons, func(r string) bool { return strings.HasPrefix(r, prefix) })
}

func TestExecutionContextUnknownLabel(t *testing.T) {
	opt := dpkgRoot(t)
	opt.Runner = runnerFunc(func(context.Context, machine.Command) machine.Result { return machine.Result{} })
	opt.ExecutionContext = "buck2-action"
	snap := Collect(context.Background(), opt)
	if snap.ExecutionContext.ProbeInvocation != "direct" ||
		reasonIndex(snap.PartialReasons, "execution_context.probe_invocation: unknown value 'buck2-action'; recorded as 'direct'") < 0 {
		t.Errorf("got %+v, %q", snap.ExecutionContext, snap.PartialReasons)
	}
}

func TestWarning(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	snap := schema.NotCaptured()
	for _, tc := range []struct {
		inv       string
		container bool
		env       map[string]string
		want      string
	}{
		{"direct", false, nil, ""},
		{"buck2_action", true, nil, ""},
		{"buck2_action", false, map[string]string{"AORTA_RE_IMAGE": "img"}, ""},
		{"buck2_action", false, map[string]string{"AORTA_DOCKER_IMAGE": "img"}, ""},
		{"buck2_action", false, map[string]string{"AORTA_RE_IMAGE": ""}, "WARNING: --execution-context buck2_action claims"},
		{"buck2_run", false, nil, "NOTICE: --execution-context buck2_run ran without"},
	} {
		snap.ExecutionContext.ProbeInvocation, snap.ContainerDetected = tc.inv, tc.container
		got := Warning(snap, env(tc.env))
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) || strings.Contains(got, "\n") {
			t.Errorf("%s/%v/%v: %q", tc.inv, tc.container, tc.env, got)
		}
	}
}

// A requested Buck target whose probe does not finish still leaves the full
// buck_invocation block of the requested context (status failure, no
// configured root), as the Python disaster snapshot does
// (docs/fields-process.md#the-not-captured-document), not the not-requested
// default.
func TestCollectPanicKeepsRequestedBuckInvocation(t *testing.T) {
	opt := dpkgRoot(t)
	testtree.WriteFile(filepath.Join(opt.Root, "bin/buck2"), []byte("#!/bin/sh\nexit 99\n"), 0o755)
	opt.Runner = runnerFunc(func(context.Context, machine.Command) machine.Result { panic("runner exploded") })
	requestTarget(t, &opt, "config=build.profile=debug")
	snap := Collect(context.Background(), opt)
	if reasonIndex(snap.PartialReasons, "collect_env: unexpected failure (panic in buck_invocation probe") < 0 {
		t.Fatalf("buck_invocation did not panic: %q", snap.PartialReasons)
	}
	got := string(pyjson.EncodeCompact(snap.BuckInvocation))
	want := `{"status": "failure", "target": "//app:trainer", "context_source": "explicit", "mode_files": [], ` +
		`"config_keys": ["build.profile"], "modifiers": [], "option_order": ["config"], "context_fingerprint": "` +
		opt.Buck.Context.Fingerprint() + `", "configured_root_target": null, "comparison": "not_compared"}`
	if got != want {
		t.Errorf("buck_invocation\n got %s\nwant %s", got, want)
	}
}

// requestTarget asks for //app:trainer in a context of one ordered option.
func requestTarget(t *testing.T, opt *Options, option string) {
	t.Helper()
	o, err := buck.ParseOption(option)
	if err != nil {
		t.Fatal(err)
	}
	if opt.Buck.Context, err = buck.NewContext([]buck.Option{o}, nil, nil, nil, false); err != nil {
		t.Fatal(err)
	}
	opt.Buck.Target = "//app:trainer"
}

// TestHostileRoot: a root whose every interesting path is an absolute or
// escaping relative link into a host tree holding a planted ROCm
// Nothing planted may appear in the document, with either resolver.
func TestHostileRoot(t *testing.T) {
	t.Parallel()
	root, err := fakeroot.Hostile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"ROCM_PATH":             "/opt/rocm-" + fakeroot.HostileVersion,
		"PYTHONPATH":            "/usr/lib/python3/dist-packages",
		"MIOPEN_SYSTEM_DB_PATH": "db", // relative: against the cwd /work inside the root
		"HOME":                  "/root",
	}
	for _, rv := range resolvers {
		t.Run(rv.name, func(t *testing.T) {
			snap := Collect(context.Background(), Options{
				Seams: machine.Seams{
					Root: root, Cwd: "/work",
					Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
					Uname: func() (machine.Uname, error) {
						return machine.Uname{Release: "6.8.0", Version: "#1", Machine: "x86_64"}, nil
					},
				},
				Now: fixedNow, PortableResolve: rv.portable, Extended: true,
			})
			doc := string(pyjson.Encode(snap))
			for _, m := range []string{fakeroot.Marker, strings.ToLower(fakeroot.Marker), fakeroot.HostileVersion} {
				if i := strings.Index(doc, m); i >= 0 {
					t.Errorf("planted %q in the document: …%s…", m, doc[max(0, i-300):min(len(doc), i+100)])
				}
			}
			if snap.Host.GlibcVersion != nil || snap.ROCm.Version != nil {
				t.Errorf("glibc %v, rocm %v: read through a link", snap.Host.GlibcVersion, snap.ROCm.Version)
			}
		})
	}
}

// BenchmarkCollectHost is a whole collection of this machine, tools
// included: go test ./probe -run XXX -bench Collect -benchmem
func BenchmarkCollectHost(b *testing.B) {
	for b.Loop() {
		Collect(context.Background(), Options{})
	}
}

// BenchmarkCollectEmptyRoot is the fixed cost of the machinery: nothing to
// read, nothing to run.
func BenchmarkCollectEmptyRoot(b *testing.B) {
	dir := b.TempDir()
	opt := Options{Seams: machine.Seams{Root: dir, Env: func(string) (string, bool) { return "", false }}}
	for b.Loop() {
		Collect(context.Background(), opt)
	}
}

func BenchmarkEncode(b *testing.B) {
	snap := Collect(context.Background(), Options{})
	b.ReportAllocs()
	for b.Loop() {
		pyjson.Encode(snap)
	}
}

// BenchmarkContainerDetected is the isolation evidence alone, on this
// machine: go test ./probe -run XXX -bench ContainerDetected -benchmem
func BenchmarkContainerDetected(b *testing.B) {
	s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})}
	b.ReportAllocs()
	for b.Loop() {
		collectContainerDetected(s)
	}
}

// BenchmarkCollectScenario is a whole collection of the richest fake root
// (mi350-host), every read going through machine.FS under a root: go test
// ./probe -run XXX -bench CollectScenario -benchmem
func BenchmarkCollectScenario(b *testing.B) {
	root := b.TempDir()
	a, err := fakeroot.Materialize("../testdata/roots/mi350-host.txtar", root)
	if err != nil {
		b.Fatal(err)
	}
	t := &testing.T{}
	opt := scenarioOptions(t, root, a)
	b.ReportAllocs()
	for b.Loop() {
		Collect(context.Background(), opt)
	}
}

// TestHashCutByDeadline: a 64 GiB (sparse) libMIOpen.so takes tens of
// seconds to hash; the 1 s deadline cuts it. The miopen block is then not
// captured, with the deadline as its reason, not a finished block whose
// library is "missing or unreadable".
func TestHashCutByDeadline(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testtree.Files(t, root, map[string]string{"opt/rocm/.info/version": "7.2.1\n", "opt/rocm/lib/libMIOpen.so": ""})
	if err := os.Truncate(filepath.Join(root, "opt/rocm/lib/libMIOpen.so"), 64<<30); err != nil {
		t.Skipf("no sparse 64 GiB file here: %v", err)
	}
	opt := Options{Seams: machine.Seams{Root: root, Cwd: "/", Path: []string{}, Env: func(string) (string, bool) { return "", false }}, Now: time.Now, Deadline: time.Second}
	opt.Python.Disabled = true
	snap := Collect(context.Background(), opt)
	var miopen []string
	for _, r := range snap.PartialReasons {
		if strings.HasPrefix(r, "miopen:") || strings.HasPrefix(r, "miopen.") {
			miopen = append(miopen, r)
		}
	}
	if want := "miopen: not captured (deadline of 1s exceeded)"; strings.Join(miopen, "|") != want {
		t.Errorf("miopen reasons %q, want %q", miopen, want)
	}
	if snap.MIOpen.LibHash != nil {
		t.Errorf("miopen.lib_hash %s", *snap.MIOpen.LibHash)
	}
}

// fixedNow is the clock of every scenario: timestamps are constant and
// every measured duration is zero.
var fixedNow = func() time.Time { return time.Date(2026, 4, 28, 12, 0, 0, 0, time.UTC) }

// scenarioOptions turns an archive's settings into Options over root:
//
//	env: NAME=value        one environment variable (repeatable); nothing else is set;
//	                       $ROOT in the value is the expanded root (env: TMPDIR=$ROOT/tmp)
//	path: bin usr/bin      tool directories, relative to the root (default: bin)
//	uname: R | V | M       uname(2) answer (default a fixed Ubuntu kernel)
//	uname-error: EPERM     uname(2) fails
//	cwd: /work             working directory for relative paths
//	extended: true         --extended
//	execution-context: X   --execution-context X
//	buck-target: T         --buck-target T
//	buck-option: TYPE=V    --buck-option TYPE=V (repeatable, ordered)
//
// and a section "-- path [errno OP NAME] --" (OP open, stat, lstat or
// readlink) makes that operation on /path fail with NAME (Options.faults):
// with "-- path [dir] --" as well, a directory that exists but cannot be
// listed, which a test running as root cannot otherwise have.
//
// testTempName is Options.TempName in tests: the rdhc temp file name,
// hence the argv recorded in golden documents, is stable (scenarios put
// the file under their own root with env: TMPDIR=$ROOT/tmp, so names never
// clash).
func testTempName(attempt int) string { return fmt.Sprintf("test%04d", attempt) }

// scenarioRootID is the root identity of every scenario: a root on the
// root filesystem of a 6.8+ kernel.
var scenarioRootID = machine.RootAnswer{MountID: 2147483649, Source: "STATX_MNT_ID_UNIQUE", Device: "259:1", Inode: 2}

func scenarioOptions(t *testing.T, root string, a *fakeroot.Archive) Options {
	t.Helper()
	env := map[string]string{}
	opt := Options{Seams: machine.Seams{
		// No scenario is about timeouts: its fake tools answer at once,
		// however long a loaded machine takes to start them.
		Root: root, Cwd: "/", Runner: patientRunner{t}, TempName: testTempName,
		Uname: func() (machine.Uname, error) {
			return machine.Uname{Release: "6.8.0-49-generic", Version: "#49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024", Machine: "x86_64"}, nil
		},
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		// statx of the fake root would give the test machine's mount id.
		RootID: func() machine.RootAnswer { return scenarioRootID },
	}, Now: fixedNow}
	var path []string
	var buckOpts []buck.Option
	for _, kv := range a.Settings() {
		switch k, v := kv[0], kv[1]; k {
		case "env":
			name, val, _ := strings.Cut(v, "=")
			env[name] = strings.ReplaceAll(val, "$ROOT", root)
		case "path":
			for _, d := range strings.Fields(v) {
				path = append(path, filepath.Join(root, d))
			}
		case "uname":
			f := strings.Split(v, "|")
			if len(f) != 3 {
				t.Fatalf("uname setting needs three fields: %q", v)
			}
			u := machine.Uname{Release: strings.TrimSpace(f[0]), Version: strings.TrimSpace(f[1]), Machine: strings.TrimSpace(f[2])}
			opt.Uname = func() (machine.Uname, error) { return u, nil }
		case "uname-error":
			opt.Uname = func() (machine.Uname, error) { return machine.Uname{}, fmt.Errorf("%s", v) }
		case "cwd":
			opt.Cwd = v
		case "extended":
			opt.Extended = v == "true"
		case "execution-context":
			opt.ExecutionContext = v
		case "buck-target":
			opt.Buck.Target = v
		case "buck-option":
			o, err := buck.ParseOption(v)
			if err != nil {
				t.Fatalf("buck-option %q: %v", v, err)
			}
			buckOpts = append(buckOpts, o)
		}
	}
	if len(buckOpts) > 0 {
		c, err := buck.NewContext(buckOpts, nil, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		opt.Buck.Context = c
	}
	for _, f := range a.Files {
		if f.Errno == "" {
			continue
		}
		op, name, ok := strings.Cut(f.Errno, " ")
		if !ok {
			t.Fatalf("%s: [errno %s] needs an operation and an errno name", f.Path, f.Errno)
		}
		if opt.faults == nil {
			opt.faults = map[string]syscall.Errno{}
		}
		opt.faults[op+" /"+f.Path] = archive.ErrnoByName(name)
	}
	if path == nil {
		path = []string{filepath.Join(root, "bin")}
	}
	opt.Path = path
	return opt
}

// collectScenario expands an archive and collects over it.
func collectScenario(t *testing.T, archive string) *schema.Snapshot {
	return collectScenarioWith(t, archive, scenarioConfig{})
}

// scenarioConfig varies how a scenario is collected; the document must not
// change with it.
type scenarioConfig struct {
	portable bool // the portable path walk instead of openat2 (machine.FS)
	workers  int  // Options.Workers (0: the default)
}

// collectScenarioWith is collectScenario under cfg.
func collectScenarioWith(t *testing.T, path string, cfg scenarioConfig) *schema.Snapshot {
	t.Helper()
	root := testtree.TempDir(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := fakeroot.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	if archive.IsCapture(a) {
		// A capture of a real place (docs/capture.md): replayed, never
		// reading or running anything of this machine.
		// It must be whole (sealed: docs/capture.md, "Integrity").
		if a, err = archive.ParseCapture(data); err != nil {
			t.Fatalf("%s: %v (after an edit: go run ./scripts/capturetestdata -reseal)", path, err)
		}
		r, err := archive.NewReplay(a, root)
		if err != nil {
			t.Fatal(err)
		}
		opt = replayOptions(r, Options{Now: fixedNow})
	} else {
		if err := a.Expand(root); err != nil {
			t.Fatal(err)
		}
		opt = scenarioOptions(t, root, a)
	}
	opt.PortableResolve = cfg.portable
	opt.Workers = cfg.workers
	snap := Collect(context.Background(), opt)
	// The temporary directory is not part of the scenario: commands found
	// on the scenario's PATH (run by absolute path) and temp files under
	// $ROOT are recorded as the machine would see them.
	snap.Provenance.Root = "/"
	for i := range snap.Provenance.Commands {
		argv := snap.Provenance.Commands[i].Argv
		for j := range argv {
			argv[j] = strings.ReplaceAll(argv[j], root, "")
		}
	}
	return snap
}

// TestScenarios collects every fake machine root under testdata/roots and
// compares the document with its golden file (go test ./... -update
// rewrites them).
func TestScenarios(t *testing.T) {
	t.Parallel()
	archives, err := filepath.Glob("../testdata/roots/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no scenario archives found (%v)", err)
	}
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("../testdata/golden", name+".json")
			got := pyjson.Encode(collectScenario(t, a))
			golden.Compare(t, path, got)
			// The portable resolver gives the same document.
			if walked := pyjson.Encode(collectScenarioWith(t, a, scenarioConfig{portable: true})); !golden.Update() && !bytes.Equal(walked, got) {
				t.Errorf("%s with the portable walk differs from openat2's:\n%s", path, golden.LineDiff(got, walked))
			}
		})
	}
}

// TestScenariosSerial: under low resource limits the collection runs one
// probe and one command at a time (Options.Workers = 1); the documents,
// command records included, are the same goldens.
func TestScenariosSerial(t *testing.T) {
	t.Parallel()
	archives, _ := filepath.Glob("../testdata/roots/*.txtar")
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join("../testdata/golden", name+".json"))
			if err != nil {
				t.Skip("no golden yet")
			}
			if got := pyjson.Encode(collectScenarioWith(t, a, scenarioConfig{workers: 1})); !bytes.Equal(got, want) {
				t.Errorf("serial collection differs from %s.json", name)
			}
		})
	}
}

// TestIsolationScenarios pins what each isolation scenario must conclude,
// independently of the golden bytes.
func TestIsolationScenarios(t *testing.T) {
	for _, tc := range []struct {
		scenario      string
		typ           string
		detected      bool
		mustFire      []string
		contradiction string
	}{
		{"docker-container", "docker", true, []string{"dockerenv", "self_cgroup_runtime", "pid_ns_not_initial", "root_mount_container_like"}, ""},
		{"k8s-pod", "baremetal", true, []string{"pid_ns_not_initial", "cgroup_ns_not_initial", "probe_is_pid1", "kubernetes_service_env"}, "signals are all silent"},
		{"bwrap-sandbox", "baremetal", true, []string{"user_ns_not_initial", "user_ns_uid_map", "pid_ns_not_initial", "root_mount_container_like"}, "signals are all silent"},
		{"vm-with-dockerenv", "docker", true, []string{"dockerenv"}, "every readable namespace is the kernel's initial one"},
		{"empty", "baremetal", true, []string{"procfs_missing"}, "signals are all silent"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			snap := collectScenario(t, "../testdata/roots/"+tc.scenario+".txtar")
			if snap.RuntimeContext.Type != tc.typ || snap.ContainerDetected != tc.detected {
				t.Errorf("type %q detected %v, want %q %v", snap.RuntimeContext.Type, snap.ContainerDetected, tc.typ, tc.detected)
			}
			fired := map[string]bool{}
			for _, sg := range snap.Provenance.Isolation.Signals {
				fired[sg.Name] = sg.Fired
			}
			for _, n := range tc.mustFire {
				if !fired[n] {
					t.Errorf("signal %s did not fire", n)
				}
			}
			joined := strings.Join(snap.Provenance.Isolation.Contradictions, "\n")
			if (tc.contradiction == "") != (joined == "") || !strings.Contains(joined, tc.contradiction) {
				t.Errorf("contradictions %q, want one containing %q", joined, tc.contradiction)
			}
		})
	}
}

// TestScenarioCommands checks, over every scenario, that sudo only ever runs
// non-interactively with the caller's environment (sudo -n -E) and only for
// rdhc and nicctl, and that no command is a shell.
func TestScenarioCommands(t *testing.T) {
	t.Parallel()
	archives, err := filepath.Glob("../testdata/roots/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(a), ".txtar"), func(t *testing.T) {
			t.Parallel()
			snap := collectScenario(t, a)
			for _, c := range snap.Provenance.Commands {
				switch filepath.Base(c.Argv[0]) {
				case "sudo":
					if len(c.Argv) < 4 || c.Argv[1] != "-n" || c.Argv[2] != "-E" {
						t.Errorf("sudo without -n -E: %q", c.Argv)
					} else if tool := toolOf(c.Argv); tool != "rdhc" && tool != "rdhc.py" && tool != "nicctl" {
						t.Errorf("sudo runs %q", c.Argv)
					}
				case "sh", "bash", "dash":
					t.Errorf("command through a shell: %q", c.Argv)
				case "rdhc", "rdhc.py", "nicctl":
					t.Errorf("%q run without sudo", c.Argv)
				}
			}
		})
	}
}
