package probe

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/knobs"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// Options control one collection. The zero value probes the live machine.
type Options struct {
	// Seams are the machine the collection reads: Root, Cwd, Path, Env,
	// Runner, Uname, NamespaceID, RootID and TempName, each documented on
	// machine.Seams; a capture wraps them (record) and a replay answers
	// them (replayOptions). Left zero, withDefaults gives the live
	// machine: Root "/", Cwd os.Getwd, Env os.LookupEnv, Runner
	// machine.ExecRunner, Uname the syscall, TempName Python's tempfile
	// alphabet at random; NamespaceID and RootID ask the kernel through
	// the root (probe_identity.go). Tests fix them so documents are
	// stable.
	machine.Seams
	// Now is the clock; tests fix it so timestamps and durations are stable.
	Now func() time.Time
	// PortableResolve resolves paths under Root with the portable
	// component walk even where the kernel has openat2 (machine.FS), so
	// that tests cover both resolvers on one machine.
	PortableResolve bool
	// Deadline bounds the whole collection; default machine.DefaultDeadline.
	Deadline time.Duration
	// Extended keeps the per-file catalog lists (detail "full").
	Extended bool
	// ExecutionContext is the caller's --execution-context label.
	ExecutionContext string
	// NoProvenance drops the probe_provenance block.
	NoProvenance bool
	// TuningState adds the GPUs' per-moment state to
	// probe_provenance.tuning (--tuning-state, docs/tuning.md); never in
	// the default run.
	TuningState bool
	// Version is this binary's version, for probe_provenance.
	Version string
	// Python chooses the workload interpreter (python_options.go).
	Python PythonOptions
	// Buck carries --buck-target and its context (buck_options.go).
	Buck BuckOptions
	// Workers bounds how many probes run at once; at 1 the independent
	// commands of a block (state.parallel) and the file hashes also run
	// one at a time. 0 means unbounded, unless the process's resource
	// limits are low (limits.go), then 1.
	Workers int
	// Record, when set, records everything the collection reads and runs
	// (capture.go, docs/capture.md).
	Record *archive.Recorder
	// Replay is set by Replay.Options: the collection is answered from a
	// capture archive (internal/machine/replay.go).
	Replay *archive.Replay
	// bound, when set, bounds this run instead of Deadline: a replay's
	// own --deadline, while Deadline is the captured collection's
	// (replayOptions), which the document reports.
	bound time.Duration
	// faults are errors the filesystem answers instead of reading, keyed
	// "open /path", "stat /path", "lstat /path" or "readlink /path", as a
	// replay's recorded errors: the [errno] sections of a scenario archive
	// (tests run as root, which no permission bit stops from listing a
	// directory).
	faults map[string]syscall.Errno
	// detachedExe, when set, is the GPU reader to start instead of the
	// binary's (gpus_detached.go): tests, whose binary is not the probe.
	detachedExe string
	// skipTuning leaves probe_provenance.tuning out: the benchmarks
	// measure the block's cost against a run without it.
	skipTuning bool
}

// probeGrace is how long probes may still finish after the deadline or an
// interruption, once their commands have been killed.
const probeGrace = 200 * time.Millisecond

// ExecutionContexts are the valid --execution-context labels.
var ExecutionContexts = []string{"direct", "buck2_run", "buck2_action"}

// collector is the shared state of one collection, in four parts: the
// machine it reads (runEnv), the values computed once per run (facts,
// facts.go), the scheduling of the probe table's rows and their commands
// (schedule, schedule.go), and a replay's cut bookkeeping (cutBook,
// cut.go).
type collector struct {
	runEnv
	facts
	schedule
	cutBook
}

// runEnv is the machine one collection reads and how it reaches it.
type runEnv struct {
	opt  Options
	root *machine.FS
	path []string
	ctx  context.Context
	// isExec is which()'s test of a candidate: the host's (machine.IsExecutable),
	// recorded under capture, the archive's under replay.
	isExec func(string) bool
	// redact removes secrets from what probe_provenance records of a
	// command (its argv and error text): Buck config values
	// (redactArgv in buck_invocation.go).
	redact func(string) string
}

// Collect probes the machine opt describes and returns the document. It
// never fails: whatever cannot be read becomes null plus a reason, a probe
// that panics or misses the deadline leaves its not-captured shape and one
// reason, and cancelling ctx (SIGTERM) ends collection the same way.
//
// The probe table's rows run in three phases (schedule.go): the
// document's blocks, gathered in table order; the blocks read beside them
// (gpus); and, once every command has ended, the blocks read from the
// document (rocm_installs).
func Collect(ctx context.Context, opt Options) *schema.Snapshot {
	opt = withDefaults(opt)
	started := opt.Now()
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(opt.bound, opt.Deadline))
	defer cancel()

	c := newCollector(ctx, opt)
	c.prefetch()
	c.startProbes()
	snap := notCaptured(c)
	snap.Provenance = newProvenance(opt, started)
	reasons := c.gather(snap)
	c.gatherBeside(snap)
	// Kill what still runs (the probes abandoned by gather), refuse new
	// commands, and wait until every process group started is gone.
	cancel()
	c.drain()
	c.runLast(snap)
	c.listCommands(snap.Provenance)

	snap.PartialReasons = reasons
	snap.Partial = len(reasons) > 0
	end := opt.Now()
	// captured_at is the end of probing, whole seconds, UTC
	// (docs/fields-process.md#envelope).
	snap.CapturedAt = end.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
	snap.Provenance.DurationUS = end.Sub(started).Microseconds()
	if opt.NoProvenance {
		snap.Provenance = nil
	}
	return snap
}

// CollectRoot is Collect for the command line: when opt.Root names a
// capture archive (a regular file, IsArchive) the collection replays it,
// expanded into a directory under TMPDIR that is removed afterwards
// (docs/capture.md); opt.Record records the collection, and a replay is
// never recorded again. Its errors come before anything is collected:
// ErrNotArchive (wrapped) for a file that is no capture archive, a usage
// error (docs/usage.md), else what stopped the archive from loading or a
// capture of a replay.
func CollectRoot(ctx context.Context, opt Options) (*schema.Snapshot, error) {
	if !archive.IsArchive(opt.Root) {
		return Collect(ctx, opt), nil
	}
	if opt.Record != nil {
		return nil, fmt.Errorf("capture: --root %s is an archive; a replay is not captured again", opt.Root)
	}
	r, err := archive.LoadReplay(opt.Root, "")
	if err != nil {
		return nil, err
	}
	snap := Collect(ctx, replayOptions(r, opt))
	if err := r.Close(); err != nil {
		return nil, err
	}
	return snap, nil
}

// newCollector is the shared state of one collection of opt (defaults
// applied) bounded by ctx: the root, the search path, the values computed
// once (facts) and one slot per row of the probe table. Tests build the
// partial collectors they need from it.
func newCollector(ctx context.Context, opt Options) *collector {
	opt = withDefaults(opt)
	root := machine.NewFS(opt.Root, opt.Cwd, opt.PortableResolve)
	if opt.faults != nil {
		root.SetFaults(opt.faults)
	}
	isExec := machine.IsExecutable
	if rc := opt.Record; rc != nil { // capture (capture.go)
		opt = record(rc, opt, root)
		isExec = func(p string) bool {
			ok := machine.IsExecutable(p)
			if ok {
				rc.Executable(p)
			}
			return ok
		}
	}
	c := &collector{runEnv: runEnv{opt: opt, root: root, ctx: ctx, isExec: isExec,
		redact: opt.Buck.Context.Redact, path: opt.Path}}
	c.setFacts()
	if rp := opt.Replay; rp != nil { // replay of a capture (capture.go)
		root.SetFaults(rp.Faults())
		c.isExec = rp.IsExec(root)
		c.hashes.preload(rp)
		c.replayCut(rp.Cut()) // cut.go
	}
	if c.path == nil && opt.Root == "/" {
		c.path = machine.SearchPath(opt.Env)
	}
	c.setTable(probeTable())
	return c
}

// newProvenance is probe_provenance before any probe finished.
func newProvenance(opt Options, started time.Time) *schema.Provenance {
	root := opt.Root
	if opt.Replay != nil {
		// The archive replayed (docs/capture.md), not its expansion;
		// the root it described when loaded otherwise.
		root = opt.Replay.Described()
	}
	return &schema.Provenance{
		Implementation: "aorta-probe",
		Version:        opt.Version,
		Build:          buildInfo(),
		StartedAt:      started.UTC().Format("2006-01-02T15:04:05.000000Z"),
		DeadlineMS:     opt.Deadline.Milliseconds(),
		Root:           root,
		Detail:         map[bool]string{false: "compact", true: "full"}[opt.Extended],
		Probes:         []schema.ProbeRecord{},
		Commands:       []schema.CommandRecord{},
		Isolation:      schema.Isolation{Verdict: "not_captured", Signals: []schema.Signal{}, Contradictions: []string{}},
		Identity: schema.Identity{Grade: "none", AnsweredBy: "kernel", Namespaces: []schema.NamespaceIdentity{},
			Boot: schema.BootIdentity{Reason: schema.Str("not captured: the probe_namespace probe did not finish")},
			Root: &schema.RootIdentity{Reason: schema.Str("not captured: the probe_namespace probe did not finish")}},
		Placement: schema.Placement{Suggests: "not_captured", Signals: []schema.PlacementSignal{}, Evidence: []string{},
			LikelyExecutionPlatform: schema.PlatformEvidence{Reason: schema.Str("not captured: the execution_context probe did not finish")}},
	}
}

// interruption says why a probe was abandoned: the cut of the capture a
// replay answers from, else this run's deadline or a signal.
func (c *collector) interruption() string {
	if c.cut != nil && c.ctx.Err() == nil {
		return c.cut.Why
	}
	if c.ctx.Err() == context.DeadlineExceeded {
		return fmt.Sprintf("deadline of %s exceeded", cmp.Or(c.opt.bound, c.opt.Deadline))
	}
	return "collection interrupted"
}

// notCaptured is the document before any probe finished: every block in its
// not-captured shape, with the parts known without probing filled in (the
// resolved ROCm roots, the caller's label, the requested Buck context, every
// env knob name).
func notCaptured(c *collector) *schema.Snapshot {
	snap := schema.NotCaptured()
	fillRoots(snap, c.knownRoots())
	// runtime_context.type needs no interpreter: even when the block is not
	// captured (its python_env waits for the helper) the type is the real
	// one, never a hard-coded "baremetal" that would hide a container.
	snap.RuntimeContext.Type = runtimeType(&state{collector: c})
	snap.ExecutionContext.ProbeInvocation = validExecutionContext(c.opt.ExecutionContext)
	snap.BuckInvocation = requestedBuckInvocation(c.opt.Buck)
	for _, name := range knobs.Names() {
		snap.EnvVars = append(snap.EnvVars, pyjson.Entry[*string]{Key: name})
	}
	return snap
}

// knownRoots is the resolved roots if resolution has finished, else what
// is known without the interpreter's answer: nothing, so /opt/rocm with
// source none.
func (c *collector) knownRoots() rocmRoots {
	select {
	case <-c.rootsDone:
		return c.rocm()
	default:
		return classicRoots("/opt/rocm", "none")
	}
}

// fillRoots writes the root attribution into the not-captured rocm and
// therock blocks (filled even when not captured:
// docs/fields-process.md#the-not-captured-document).
func fillRoots(snap *schema.Snapshot, r rocmRoots) {
	fillROCmRoots(snap, r)
	fillTheRockRoots(snap, r)
}

func fillROCmRoots(snap *schema.Snapshot, r rocmRoots) {
	snap.ROCm.Root, snap.ROCm.LibRoot = r.core, r.lib
	snap.ROCm.RootSource, snap.ROCm.Layout = r.source, r.layout
}

func fillTheRockRoots(snap *schema.Snapshot, r rocmRoots) {
	snap.TheRock.ManifestPath = r.manifestPath()
}

func validExecutionContext(label string) string {
	for _, v := range ExecutionContexts {
		if label == v {
			return v
		}
	}
	return "direct"
}

func withDefaults(opt Options) Options {
	if opt.Root == "" {
		opt.Root = "/"
	}
	if opt.Env == nil {
		opt.Env = os.LookupEnv
	}
	if opt.Runner == nil {
		opt.Runner = machine.ExecRunner{}
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Uname == nil {
		opt.Uname = sysUname
	}
	if opt.Cwd == "" {
		opt.Cwd, _ = os.Getwd()
	}
	if opt.Deadline <= 0 {
		opt.Deadline = machine.DefaultDeadline
	}
	if opt.ExecutionContext == "" {
		opt.ExecutionContext = "direct"
	}
	if opt.Workers <= 0 {
		opt.Workers = defaultWorkers()
	}
	if opt.TempName == nil {
		opt.TempName = func(int) string { return randomTempChars() }
	}
	return opt
}

// buildInfo describes the running binary.
func buildInfo() schema.Build {
	b := schema.Build{GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "CGO_ENABLED":
				b.CGOEnabled = schema.Str(s.Value)
			case "vcs.revision":
				b.VCS = schema.Str(s.Value)
			}
		}
	}
	return b
}
