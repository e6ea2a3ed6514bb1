package probe

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

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
