package probe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// A panic inside a probe becomes one reason in that probe's slot and leaves
// the block in its fully-shaped not-captured form; every other block is
// still captured.
func TestCollectPanicInProbe(t *testing.T) {
	opt := dpkgRoot(t)
	opt.Runner = runnerFunc(func(context.Context, machine.Command) machine.Result { panic("runner exploded") })
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
	opt.Runner = runnerFunc(func(context.Context, machine.Command) machine.Result { <-release; return machine.Result{} }) // ignores ctx
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
	t.Parallel()
	opt := dpkgRoot(t)
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	// Interrupted once a command is in flight (it never returns).
	opt.Runner = runnerFunc(func(context.Context, machine.Command) machine.Result { cancel(); <-release; return machine.Result{} })
	snap := Collect(ctx, opt)
	if reasonIndex(snap.PartialReasons, "amdgpu_driver: not captured (collection interrupted)") < 0 {
		t.Errorf("no interruption reason in %q", snap.PartialReasons)
	}
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

// The panic reason is redacted like every exception text placed in a reason
// (docs/buck2.md#context-fingerprint): a Buck config value quoted by the
// panic message never reaches the document.
func TestCollectPanicReasonRedacted(t *testing.T) {
	opt := dpkgRoot(t)
	opt.Runner = runnerFunc(func(context.Context, machine.Command) machine.Result {
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
// then would outlive the probe. A hipconfig that fails makes hip follow its
// two combined runs with single runs (docs/hardware.md#hip--hipconfig), so
// the abandoned hip probe asks for more after the first are cancelled.
func TestCollectReapsCommands(t *testing.T) {
	opt := dpkgRoot(t)
	if err := testtree.WriteFile(filepath.Join(opt.Root, "bin", "hipconfig"), []byte("#!/bin/sh\nexit 99\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		active   int
		returned bool
		late     []string
	)
	opt.Runner = runnerFunc(func(ctx context.Context, c machine.Command) machine.Result {
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
		return machine.Result{Err: machine.ErrTimeout, ExitCode: -9}
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
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	testtree.WriteFile(filepath.Join(dir, "bin", "python3"), []byte("#!/bin/sh\nexec sleep 60\n"), 0o755)
	os.WriteFile(filepath.Join(dir, ".dockerenv"), nil, 0o644)
	opt := Options{
		Seams: machine.Seams{
			Root: dir, Path: []string{filepath.Join(dir, "bin")},
			Env:   func(string) (string, bool) { return "", false },
			Uname: func() (machine.Uname, error) { return machine.Uname{Release: "r", Version: "v", Machine: "m"}, nil },
		},
		Now: fixedNow,
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
	s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})}
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

// barrierRunner lifts every command's timeout to barrierWait+10 s: the
// barrier tools below wait for each other, and a 5 s spec timeout must not
// be what ends a wait on a loaded machine.
type barrierRunner struct{}

const barrierWait = 20 // seconds a tool waits for the others

func (barrierRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	c.Timeout = (barrierWait + 10) * time.Second
	return machine.ExecRunner{}.Run(ctx, c)
}

// barrier is a tool body that records its start in starts and then waits
// until at least n commands have started. Run one after another, the
// first tool of a wave would wait alone: it gives up after barrierWait
// seconds and fails loudly, which shows in the reasons.
func barrier(starts string, n int, then string) string {
	return `echo "$0 $*" >> '` + starts + `'
i=0
while [ "$(wc -l < '` + starts + `')" -lt ` + strconv.Itoa(n) + ` ]; do
  i=$((i+1)); [ $i -gt ` + strconv.Itoa(barrierWait*50) + ` ] && { echo "started alone: $(wc -l < '` + starts + `') of ` + strconv.Itoa(n) + `" >&2; exit 97; }
  sleep 0.02
done
` + then
}

// TestNICsRunConcurrently runs the NIC block with tools that each wait for
// the others of their wave: the three vendors' lspci; then, per vendor,
// ibv_devices and rdma plus, for AINIC, four nicctl queries (3×2+4 = 10);
// then the nicctl profile and dcqcn. Had any wave run one command after
// another, its first command would wait alone and fail. The reasons and the
// command records must still come in the spec's order.
func TestNICsRunConcurrently(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	os.WriteFile(starts, nil, 0o644)
	const uuid = "42424650-4c32-3533-3530-314130000000"
	scripts := map[string]string{
		"lspci":       barrier(starts, 3, `echo "c1:00.0 Ethernet controller"`),
		"ibv_devices": barrier(starts, 9, "printf '    device\\n    ------\\n    ionic_0\\n'"),
		"rdma":        barrier(starts, 9, `[ "$1" = link ] || exit 99; echo "link ionic_0/1 state ACTIVE physical_state LINK_UP netdev enp1"`),
		"nicctl":      "exit 99",
		"sudo": `[ "$1 $2 $3" = "-n -E nicctl" ] || exit 99; shift 3
case "$*" in
"--version"|"show version firmware --json"|"show version host-software --json") ` + barrier(starts, 9, `echo 1.117.5-a-74`) + `;;
"show card --detail") ` + barrier(starts, 9, `echo "Id : `+uuid+`"`) + `;;
"show card profile -c ` + uuid + `"|"show dcqcn --roce-device ionic_0 --profile-id 1") ` + barrier(starts, 11, `echo ok`) + `;;
*) exit 99;;
esac`,
	}
	s, root := toolState(t, scripts)
	s.opt.Runner = barrierRunner{}
	drv := filepath.Join(root, "sys/bus/pci/drivers/ionic")
	os.MkdirAll(drv, 0o755)
	os.MkdirAll(filepath.Join(root, "sys/class/infiniband/ionic_0/device"), 0o755)
	if err := os.Symlink(drv, filepath.Join(root, "sys/class/infiniband/ionic_0/device/driver")); err != nil {
		t.Fatal(err)
	}
	n := collectNICs(s)
	// Only nicctl's absence of parsable JSON and the other vendors' empty
	// RDMA views are expected; no tool may have waited alone.
	for _, r := range s.reasons {
		if strings.Contains(r, "exited 97") || strings.Contains(r, "started alone") {
			t.Errorf("a command ran alone: %s", r)
		}
	}
	if len(s.reasons) != 0 {
		t.Errorf("reasons %q", s.reasons)
	}
	if n.AINIC.NICDetail == nil || n.AINIC.AINICDetail == nil || derefOr(n.AINIC.AINICDetail.Card.UUID, "") != uuid {
		t.Fatalf("ainic = %s", pyjson.Encode(n.AINIC))
	}
	b, _ := os.ReadFile(starts)
	// ibv_devices and rdma link are asked by each vendor and run once
	// (run_once.go): 15 asks, 11 starts.
	if got := strings.Count(string(b), "\n"); got != 11 {
		t.Errorf("%d commands started, want 11:\n%s", got, b)
	}
	// The records are in the spec's order: vendor by vendor, lspci first,
	// then ibv_devices, rdma, nicctl's identity, then profile and dcqcn.
	var got []string
	for _, c := range s.commands {
		a := append([]string{filepath.Base(c.Argv[0])}, c.Argv[1:]...)
		if a[0] == "sudo" {
			a = a[3:]
		}
		got = append(got, strings.Join(a, " "))
	}
	want := []string{
		"lspci -d 1dd8:1002", "ibv_devices", "rdma link",
		"nicctl --version", "nicctl show version firmware --json", "nicctl show version host-software --json", "nicctl show card --detail",
		"nicctl show card profile -c " + uuid, "nicctl show dcqcn --roce-device ionic_0 --profile-id 1",
		"lspci -d 14e4:1760", "ibv_devices", "rdma link",
		"lspci -d 15b3:1021", "ibv_devices", "rdma link",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("command records\n got %q\nwant %q", got, want)
	}
	// In probe_provenance.commands each shared run is listed once, where
	// it was first asked, naming its three askers.
	var merged []string
	for _, c := range mergeShared(s.commands) {
		line := strings.Join(append([]string{filepath.Base(c.Argv[0])}, c.Argv[1:]...), " ")
		if c.SharedBy != nil {
			line += " shared_by " + strings.Join(*c.SharedBy, ",")
		}
		merged = append(merged, line)
	}
	if len(merged) != 11 || merged[1] != "ibv_devices shared_by test,test,test" || merged[2] != "rdma link shared_by test,test,test" {
		t.Errorf("merged records %q", merged)
	}
}

// TestAMDGPUDriverDoesNotWaitForPython: with no ROCm root on the
// filesystem, root discovery asks the interpreter, which here waits until
// amdgpu_driver's modinfo has run. Had amdgpu_driver waited for rocm (and
// so for the roots and the interpreter), modinfo would run only after the
// interpreter was killed at its timeout.
func TestAMDGPUDriverDoesNotWaitForPython(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	release := filepath.Join(t.TempDir(), "release")
	writeFiles(t, root, map[string]string{
		"sys/module/amdgpu/version": "6.16.13\n",
		"bin/python3":               "#!/bin/sh\nwhile [ ! -e '" + release + "' ]; do sleep 0.02; done\nexit 3\n",
		"bin/modinfo":               "#!/bin/sh\n[ \"$1\" = amdgpu ] || exit 99\ntouch '" + release + "'\necho 'version: 6.16.13'\n",
	})
	for _, n := range []string{"python3", "modinfo"} {
		os.Chmod(filepath.Join(root, "bin", n), 0o755)
	}
	opt := Options{Seams: machine.Seams{Root: root, Cwd: "/", Path: []string{filepath.Join(root, "bin")}, Env: func(string) (string, bool) { return "", false }}, Now: time.Now}
	opt.Python.Timeout = 20 * time.Second
	snap := Collect(context.Background(), opt)
	for _, c := range snap.Provenance.Commands {
		if filepath.Base(c.Argv[0]) == "python3" && c.TimedOut {
			t.Errorf("the interpreter was killed at its timeout: modinfo waited for it")
		}
	}
	if v := derefOr(snap.AMDGPUDriver.KmdVersion, "<nil>"); v != "6.16.13" {
		t.Errorf("amdgpu_driver.kmd_version %s", v)
	}
	if v := derefOr(snap.AMDGPUDriver.ModuleVersion, "<nil>"); v != "6.16.13" {
		t.Errorf("amdgpu_driver.module_version %s", v)
	}
}

// TestHIPRunsConcurrently: the two combined hipconfig runs wait for each
// other, then the five single runs that follow combined runs which did not
// split (docs/hardware.md#hip--hipconfig) wait for each other.
func TestHIPRunsConcurrently(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	os.WriteFile(starts, nil, 0o644)
	s, _ := toolState(t, map[string]string{"hipconfig": `if [ $# -gt 1 ]; then
` + barrier(starts, 2, `echo "v$1"`) + `
else
` + barrier(starts, 7, `echo "v$1"`) + `
fi`})
	s.opt.Runner = barrierRunner{}
	h := collectHIP(s)
	wantReasons(t, s)
	if derefOr(h.Version, "") != "v--version" || derefOr(h.CppConfig, "") != "v--cpp_config" || derefOr(h.Platform, "") != "v--platform" {
		t.Errorf("hip = %s", pyjson.Encode(h))
	}
	var flags []string
	for _, c := range s.commands {
		flags = append(flags, strings.Join(c.Argv[1:], " "))
	}
	if strings.Join(flags, ",") != "--cpp_config --platform --runtime,--compiler --platform --version,--cpp_config,--runtime,--compiler,--version,--platform" {
		t.Errorf("command records out of order: %q", flags)
	}
}

// TestHashCutByDeadline: a 64 GiB (sparse) libMIOpen.so takes tens of
// seconds to hash; the 1 s deadline cuts it. The miopen block is then not
// captured, with the deadline as its reason, not a finished block whose
// library is "missing or unreadable".
func TestHashCutByDeadline(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"opt/rocm/.info/version": "7.2.1\n", "opt/rocm/lib/libMIOpen.so": ""})
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
	root := t.TempDir()
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
		snap := collectScenario(t, a)
		for _, c := range snap.Provenance.Commands {
			switch filepath.Base(c.Argv[0]) {
			case "sudo":
				if len(c.Argv) < 4 || c.Argv[1] != "-n" || c.Argv[2] != "-E" {
					t.Errorf("%s: sudo without -n -E: %q", filepath.Base(a), c.Argv)
				} else if tool := toolOf(c.Argv); tool != "rdhc" && tool != "rdhc.py" && tool != "nicctl" {
					t.Errorf("%s: sudo runs %q", filepath.Base(a), c.Argv)
				}
			case "sh", "bash", "dash":
				t.Errorf("%s: command through a shell: %q", filepath.Base(a), c.Argv)
			case "rdhc", "rdhc.py", "nicctl":
				t.Errorf("%s: %q run without sudo", filepath.Base(a), c.Argv)
			}
		}
	}
}
