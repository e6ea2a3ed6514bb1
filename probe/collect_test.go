package probe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"aorta-probe/buck"
	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// runnerFunc adapts a function to Runner.
type runnerFunc func(context.Context, Command) Result

func (f runnerFunc) Run(ctx context.Context, c Command) Result { return f(ctx, c) }

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
		Root: dir, Path: []string{filepath.Join(dir, "bin")}, Now: fixedNow,
		Env:   func(string) (string, bool) { return "", false },
		Uname: func() (Uname, error) { return Uname{Release: "r", Version: "v", Machine: "m"}, nil },
	}
}

func reasonIndex(reasons []string, prefix string) int {
	return slices.IndexFunc(reasons, func(r string) bool { return strings.HasPrefix(r, prefix) })
}

// A panic inside a probe becomes one reason in that probe's slot and leaves
// the block in its fully-shaped not-captured form; every other block is
// still captured.
func TestCollectPanicInProbe(t *testing.T) {
	opt := dpkgRoot(t)
	opt.Runner = runnerFunc(func(context.Context, Command) Result { panic("runner exploded") })
	snap := Collect(context.Background(), opt)
	i := reasonIndex(snap.PartialReasons, "collect_env: unexpected failure (panic in amdgpu_driver probe: runner exploded)")
	if i < 0 {
		t.Fatalf("no panic reason in %q", snap.PartialReasons)
	}
	if j := reasonIndex(snap.PartialReasons, "rocm.kmd_version"); j < 0 || j > i {
		t.Errorf("panic reason out of table order: %q", snap.PartialReasons)
	}
	if snap.AMDGPUDriver != schema.NotCapturedAMDGPUDriver() {
		t.Errorf("amdgpu_driver not in its absent shape: %+v", snap.AMDGPUDriver)
	}
	if snap.Host.KernelRelease == nil || *snap.Host.KernelRelease != "r" {
		t.Error("other blocks must still be captured")
	}
	rec := snap.Provenance.Probes[slices.IndexFunc(snap.Provenance.Probes, func(p schema.ProbeRecord) bool { return p.Name == "amdgpu_driver" })]
	if rec.Outcome != "panic" {
		t.Errorf("provenance outcome %q", rec.Outcome)
	}
	if !strings.Contains(string(pyjson.Encode(snap)), `"amdgpu_driver": {`) {
		t.Error("document lacks amdgpu_driver")
	}
}

// A probe that does not finish by the deadline is abandoned: the document
// is still written, on time, with that block not captured and one reason.
func TestCollectDeadline(t *testing.T) {
	opt := dpkgRoot(t)
	release := make(chan struct{})
	defer close(release)
	opt.Runner = runnerFunc(func(context.Context, Command) Result { <-release; return Result{} }) // ignores ctx
	opt.Deadline = 200 * time.Millisecond
	opt.Now = time.Now
	// The runner never returns: only the deadline can end this Collect
	// (a broken deadline hangs the test until go test's own timeout).
	snap := Collect(context.Background(), opt)
	if reasonIndex(snap.PartialReasons, "amdgpu_driver: not captured (deadline of 200ms exceeded)") < 0 {
		t.Errorf("no deadline reason in %q", snap.PartialReasons)
	}
	if !snap.Provenance.DeadlineHit {
		t.Error("deadline_hit false")
	}
	if snap.Host.Machine == nil {
		t.Error("host must be captured")
	}
}

// Cancelling the context (SIGTERM in main) ends collection the same way.
func TestCollectInterrupted(t *testing.T) {
	opt := dpkgRoot(t)
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	// Interrupted once a command is in flight (it never returns).
	opt.Runner = runnerFunc(func(context.Context, Command) Result { cancel(); <-release; return Result{} })
	snap := Collect(ctx, opt)
	if reasonIndex(snap.PartialReasons, "amdgpu_driver: not captured (collection interrupted)") < 0 {
		t.Errorf("no interruption reason in %q", snap.PartialReasons)
	}
}

func TestExecutionContextUnknownLabel(t *testing.T) {
	opt := dpkgRoot(t)
	opt.Runner = runnerFunc(func(context.Context, Command) Result { return Result{} })
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
	os.WriteFile(filepath.Join(opt.Root, "bin/buck2"), []byte("#!/bin/sh\nexit 99\n"), 0o755)
	opt.Runner = runnerFunc(func(context.Context, Command) Result { panic("runner exploded") })
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

// The panic reason is redacted like every exception text placed in a reason
// (docs/buck2.md#context-fingerprint): a Buck config value quoted by the
// panic message never reaches the document.
func TestCollectPanicReasonRedacted(t *testing.T) {
	opt := dpkgRoot(t)
	opt.Runner = runnerFunc(func(context.Context, Command) Result {
		panic("bad argv [buck2 -c service.token=private-placeholder]")
	})
	requestTarget(t, &opt, "config=service.token=private-placeholder")
	snap := Collect(context.Background(), opt)
	want := "collect_env: unexpected failure (panic in amdgpu_driver probe: bad argv [buck2 -c service.token=<redacted>])"
	if reasonIndex(snap.PartialReasons, want) < 0 {
		t.Errorf("no redacted panic reason %q in %q", want, snap.PartialReasons)
	}
	if strings.Contains(string(pyjson.Encode(snap)), "private-placeholder") {
		t.Error("the config value reached the document")
	}
}

// Collect returns only once every command it started has returned (been
// killed and reaped), and a probe abandoned at the deadline starts no new
// command afterwards: main exits right after Collect, and a command started
// then would outlive the probe. hip runs hipconfig five times in a row, so
// the abandoned hip probe asks for four more after the first is cancelled.
func TestCollectReapsCommands(t *testing.T) {
	opt := dpkgRoot(t)
	if err := os.WriteFile(filepath.Join(opt.Root, "bin", "hipconfig"), []byte("#!/bin/sh\nexit 99\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		active   int
		returned bool
		late     []string
	)
	opt.Runner = runnerFunc(func(ctx context.Context, c Command) Result {
		mu.Lock()
		if returned {
			late = append(late, strings.Join(c.Argv, " "))
		}
		active++
		mu.Unlock()
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // the kill and the reap
		mu.Lock()
		active--
		mu.Unlock()
		return Result{Err: ErrTimeout, ExitCode: -9}
	})
	opt.Deadline = 100 * time.Millisecond
	opt.Now = time.Now
	goroutines := runtime.NumGoroutine()
	snap := Collect(context.Background(), opt)
	mu.Lock()
	returned = true
	if active != 0 {
		t.Errorf("Collect returned with %d commands still running", active)
	}
	mu.Unlock()
	if reasonIndex(snap.PartialReasons, "hip: not captured (deadline of 100ms exceeded)") < 0 {
		t.Errorf("no deadline reason for hip in %q", snap.PartialReasons)
	}
	// The abandoned probes ask for their next commands and return: wait
	// (bounded) until every goroutine Collect started has ended.
	for limit := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > goroutines; {
		if time.Now().After(limit) {
			t.Fatalf("%d goroutines still running after Collect returned, %d before", runtime.NumGoroutine(), goroutines)
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(late) > 0 {
		t.Errorf("commands started after Collect returned: %q", late)
	}
}

// Root discovery needs the interpreter only when nothing else answers, and
// then only the probes that need the roots wait for it: with a python3 that
// hangs and no ROCm anywhere, an interrupted collection still captures the
// blocks that need neither, and the blocks that relied on the killed
// interpreter are not captured (what they would say is a guess) — with
// runtime_context.type still the real one.
func TestHangingInterpreterDelaysOnlyROCmBlocks(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "python3"), []byte("#!/bin/sh\nexec sleep 60\n"), 0o755)
	os.WriteFile(filepath.Join(dir, ".dockerenv"), nil, 0o644)
	opt := Options{
		Root: dir, Path: []string{filepath.Join(dir, "bin")}, Now: fixedNow,
		Env:   func(string) (string, bool) { return "", false },
		Uname: func() (Uname, error) { return Uname{Release: "r", Version: "v", Machine: "m"}, nil },
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	snap := Collect(ctx, opt)
	outcome := map[string]string{}
	for _, p := range snap.Provenance.Probes {
		outcome[p.Name] = p.Outcome
	}
	for _, name := range []string{"host", "env_vars", "probe_namespace", "container_detected", "docker"} {
		if o := outcome[name]; o != "ok" && o != "partial" {
			t.Errorf("%s: outcome %q, want it captured while the interpreter hangs", name, o)
		}
	}
	for _, name := range []string{"runtime_context", "rocm", "pytorch_version", "triton"} {
		if o := outcome[name]; o != "deadline" {
			t.Errorf("%s: outcome %q, want not captured", name, o)
		}
	}
	if snap.RuntimeContext.Type != "docker" || snap.Docker == nil {
		t.Errorf("runtime_context %+v, docker %+v: the type must stay the real one", snap.RuntimeContext, snap.Docker)
	}
	if snap.ROCm.Root != "/opt/rocm" || snap.ROCm.RootSource != "none" {
		t.Errorf("not-captured rocm roots %+v", snap.ROCm)
	}
}

// TestAwaitOnlyAbove: a probe gets the typed block of a row above its own,
// and awaiting its own row or one below it panics (the probe's recover
// reports it) instead of risking a deadlock under few workers.
func TestAwaitOnlyAbove(t *testing.T) {
	s := &state{collector: newCollector(context.Background(), Options{Cwd: "/"})}
	finishBlock(s, theRockBlock, theRock{block: schema.TheRock{ManifestPath: "m"}}, "hipblaslt")
	if tr, ok := await(s, theRockBlock); !ok || tr.block.ManifestPath != "m" {
		t.Errorf("await therock from hipblaslt: %+v %v", tr, ok)
	}
	for _, tc := range []struct{ as, want string }{
		{"therock", "probe: therock awaits therock, which is not above it in the table"},
		{"rocm", "probe: rocm awaits hipblaslt, which is not above it in the table"},
		{"test", "probe: test awaits hipblaslt, which is not above it in the table"},
	} {
		func() {
			defer func() {
				if got := fmt.Sprint(recover()); got != tc.want {
					t.Errorf("%s: panic %q, want %q", tc.as, got, tc.want)
				}
			}()
			s.name = tc.as
			if tc.as == "therock" {
				await(s, theRockBlock)
			} else {
				await(s, hipBLASLtBlock)
			}
		}()
	}
}

// TestHostileRoot: a root whose every interesting path is an absolute or
// escaping relative link into a host tree holding a planted ROCm
// Nothing planted may appear in the document, with either resolver.
func TestHostileRoot(t *testing.T) {
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
				Root: root, Now: fixedNow, Cwd: "/work", PortableResolve: rv.portable, Extended: true,
				Env:   func(k string) (string, bool) { v, ok := env[k]; return v, ok },
				Uname: func() (Uname, error) { return Uname{Release: "6.8.0", Version: "#1", Machine: "x86_64"}, nil },
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
