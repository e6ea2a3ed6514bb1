package probe

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

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
	Record *machine.Recorder
	// Replay is set by Replay.Options: the collection is answered from a
	// capture archive (internal/machine/replay.go).
	Replay *machine.Replay
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
	// skipTuning leaves probe_provenance.tuning out: the benchmarks
	// measure the block's cost against a run without it.
	skipTuning bool
}

// probeGrace is how long probes may still finish after the deadline or an
// interruption, once their commands have been killed.
const probeGrace = 200 * time.Millisecond

// ExecutionContexts are the valid --execution-context labels.
var ExecutionContexts = []string{"direct", "buck2_run", "buck2_action"}

// collector is the shared state of one collection.
type collector struct {
	opt  Options
	root *machine.FS
	path []string
	ctx  context.Context
	// rocm resolves the ROCm roots once (docs/rocm-roots.md) and waits for
	// the answer; rootsDone is closed once it is known (rocm_roots.go).
	rocm      func() rocmRoots
	rootsDone chan struct{}
	// rootsInterrupted: the roots were resolved without the interpreter's
	// answer because the collection ended first.
	rootsInterrupted bool
	// sites is the Python search path as the filesystem shows it
	// (pythonSiteDirs), computed once.
	sites func() []string
	// distInfos are the *.dist-info entries of those directories, listed
	// once (listDistInfos).
	distInfos func() []siteDistInfos
	// dirLists are the directory listings libHash asks for, each read once
	// (dirNames).
	dirMu    sync.Mutex
	dirLists map[string]func() ([]string, error)
	// redact removes secrets from what probe_provenance records of a
	// command (its argv and error text): Buck config values
	// (redactArgv in buck_invocation.go).
	redact func(string) string
	// kmdVersion is read-text of /sys/module/amdgpu/version, read once:
	// rocm.kmd_version, which amdgpu_driver.kmd_version copies.
	kmdVersion func() *string
	// dpkg is dpkg's status database, read once (dpkg_status.go):
	// amdgpu_driver and rocm_installs both consult it.
	dpkg func() dpkgStatus
	// ldCache is where the root's /etc/ld.so.cache sends each of
	// rocm_installs' loaderLibraries, read once (while the Python helper
	// runs, see Collect).
	ldCache func() map[string]string
	// runtimeType is runtime_context.type
	// (docs/fields-process.md#runtime_context-process), evaluated once
	// (runtime_context.go).
	runtimeType func() string
	// python is the one Python helper run of the collection
	// (python_bridge.go), started by its first user.
	python func() *pyFacts
	// isExec is which()'s test of a candidate: the host's (machine.IsExecutable),
	// recorded under capture, the archive's under replay.
	isExec func(string) bool
	// hashes is the one file-hash pool of the run (hash.go).
	hashes *hashPool
	// table is the probe table (table.go) and slots its results by name.
	table []probe
	slots map[string]*slot
	// temps are host files this collection created (the rdhc output
	// file), removed when Collect returns even if the probe that made
	// one was abandoned (removeAtEnd).
	tempMu sync.Mutex
	temps  []string
	// flights counts the commands running now, so that Collect returns
	// only once every command it started has been killed and reaped.
	flights flights
	// cut is where the capture a replay answers from was cut short (nil
	// live, or when it finished): its unfinished probes are replayed up
	// to the cut and their blocks say what the live document said
	// (cut.go). rootsUnresolved: gather found the roots unresolved.
	cut             *machine.Cut
	cutRuns         map[string]*atomic.Int32 // commands recorded per unfinished probe
	rootsUnresolved bool
	why             string // the interruption, as gather found it
	gpusCut         bool   // the collection ended before the gpus block was read
	// once answers a command asked for again from its first run
	// (run_once.go).
	once runMemo
}

// flights tracks the commands in flight. Once closed (the collection is
// ending) no new command starts: a probe abandoned at the deadline or on
// SIGTERM keeps running in its goroutine, and a command it started after
// Collect returned would outlive the probe (main exits without waiting for
// it, and nothing would kill its process group).
type flights struct {
	mu     sync.Mutex
	closed bool
	n      int
	idle   chan struct{}
}

// enter registers a command about to start; false once closed.
func (f *flights) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.n++
	return true
}

// leave marks a command entered earlier as finished (reaped).
func (f *flights) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// close refuses new commands and returns a channel closed once none runs.
func (f *flights) close() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	ch := make(chan struct{})
	if f.n == 0 {
		close(ch)
	} else {
		f.idle = ch
	}
	return ch
}

// flightDrain bounds how long Collect waits, after cancelling, for the
// commands still running to be killed and reaped. ExecRunner needs
// milliseconds (SIGKILL to the group, then at most its WaitDelay for pipes
// held by escaped descendants); the bound only guards against a Runner
// that ignores cancellation.
const flightDrain = time.Second

// slot is one probe's result, published when the probe returns.
type slot struct {
	index   int // the row's place in the table
	started atomic.Bool
	done    chan struct{}
	value   any
	ok      bool // returned normally (no panic)
	// guess: the probe returned interrupted (the deadline or a signal cut
	// something it relied on), or, replayed, the capture did not finish
	// it (cut.go): its value is not to be built on.
	guess bool
}

// state is what one probe sees: the collector plus its own reasons and
// command records.
type state struct {
	*collector
	name    string
	reasons []string
	// interrupted is set when the deadline or SIGTERM cut something this
	// probe relied on (a command killed, an awaited block, the Python
	// helper, the roots): its block is then not captured, even if it
	// finishes in the grace period, since what it would say is a guess.
	// Atomic: a probe may work in several goroutines (hash.go parallel).
	interrupted atomic.Bool

	mu       sync.Mutex
	commands []cmdRecord
	// branches are the sub-states of a parallel call still running; their
	// commands are listed after this state's until they are merged.
	branches []*state
}

// parallel runs fns concurrently, each with its own sub-state of s (the
// independent commands of one block: the NIC tools, the hipconfig flags).
// Once all have returned, their reasons and command records are appended
// to s in argument order, whatever order they finished in, so the document
// and probe_provenance.commands do not depend on timing; a branch cut by
// the deadline marks s interrupted, and a branch's panic is re-raised in
// the caller, where the probe's recover reports it.
func (s *state) parallel(fns ...func(*state)) {
	subs := make([]*state, len(fns))
	for i := range subs {
		subs[i] = &state{collector: s.collector, name: s.name}
	}
	s.mu.Lock()
	s.branches = append(s.branches, subs...)
	s.mu.Unlock()
	panics := make([]any, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { panics[i] = recover() }()
			fn(subs[i])
		}()
		if s.opt.Workers == 1 {
			wg.Wait() // low resource limits: one after another
		}
	}
	wg.Wait()
	s.mu.Lock()
	for _, sub := range subs {
		s.reasons = append(s.reasons, sub.reasons...)
		s.commands = append(s.commands, sub.allCommands()...)
		if sub.interrupted.Load() {
			s.interrupted.Store(true)
		}
	}
	s.branches = slices.DeleteFunc(s.branches, func(b *state) bool { return slices.Contains(subs, b) })
	s.mu.Unlock()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// allCommands is what s and its running branches recorded, in order.
func (s *state) allCommands() []cmdRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]cmdRecord(nil), s.commands...)
	for _, b := range s.branches {
		out = append(out, b.allCommands()...)
	}
	return out
}

// probe is one row of the probe table: it computes a block and, once it has
// finished in time, stores it into the snapshot.
type probe struct {
	name string
	run  func(*state) any
	put  func(*schema.Snapshot, any)
	// missing, when set, fills the not-captured block with the ROCm roots
	// as far as they were resolved (rootsWhenMissing).
	missing func(*schema.Snapshot, rocmRoots)
}

// rootsWhenMissing makes a row whose block, when not captured, still
// names the roots (fill).
func (p probe) rootsWhenMissing(fill func(*schema.Snapshot, rocmRoots)) probe {
	p.missing = fill
	return p
}

// blockKey is the name of a probe row typed with the block it computes:
// a probe awaits another through its key (table.go), so the type awaited
// is the type computed.
type blockKey[T any] string

// block builds a probe row from a typed collector and setter.
func block[T any](name blockKey[T], run func(*state) T, put func(*schema.Snapshot, T)) probe {
	return probe{
		name: string(name),
		run:  func(s *state) any { return run(s) },
		put:  func(snap *schema.Snapshot, v any) { put(snap, v.(T)) },
	}
}

// await returns the result of an earlier probe of the table, waiting for it.
// ok is false when that probe panicked, the deadline passed first, or it
// finished cut (slot.guess: then the caller is cut too); the caller then
// uses the not-captured shape. A probe may await only rows
// above its own (the order that keeps Collect free of deadlocks with few
// workers): awaiting any other is a programming error, and panics.
func await[T any](s *state, key blockKey[T]) (T, bool) {
	var zero T
	sl, found := s.slots[string(key)]
	if !found {
		panic("probe: await of unknown probe " + string(key))
	}
	if own, ok := s.slots[s.name]; !ok || sl.index >= own.index {
		panic(fmt.Sprintf("probe: %s awaits %s, which is not above it in the table", s.name, key))
	}
	select {
	case <-sl.done:
		if sl.guess {
			// What it computed is a guess (cut by the deadline or a
			// signal): so would be what is built on it.
			s.interrupted.Store(true)
			return zero, false
		}
		if !sl.ok {
			return zero, false
		}
		return sl.value.(T), true
	case <-s.ctx.Done():
		s.interrupted.Store(true)
		return zero, false
	}
}

// python is the collection's one Python helper run (collector.python), and
// marks this probe interrupted when the deadline killed the helper.
func (s *state) python() *pyFacts {
	f := s.collector.python()
	if f.interrupted {
		s.interrupted.Store(true)
	}
	return f
}

// rocm is the collection's ROCm roots (collector.rocm), and marks this probe
// interrupted when they were resolved without the interpreter's answer.
func (s *state) rocm() rocmRoots {
	r := s.collector.rocm()
	if s.collector.rootsInterrupted {
		s.interrupted.Store(true)
	}
	return r
}

func (s *state) reason(format string, args ...any) {
	s.reasons = append(s.reasons, fmt.Sprintf(format, args...))
}

// env is the probe's environment lookup.
func (s *state) env(name string) (string, bool) { return s.opt.Env(name) }

// getenv is env without the set/unset distinction.
func (s *state) getenv(name string) string { v, _ := s.opt.Env(name); return v }

// envPtr is os.environ.get: nil when unset, the raw value (even "") when set.
func (s *state) envPtr(name string) *string {
	if v, ok := s.opt.Env(name); ok {
		return &v
	}
	return nil
}

// which looks a tool up on the probe's search path.
func (s *state) which(name string) (string, bool) { return s.collector.which(name) }

// which looks a tool up on the search path with the collection's test.
func (c *collector) which(name string) (string, bool) {
	if c.isExec == nil {
		return machine.Which(c.path, name)
	}
	return machine.WhichWith(c.isExec, c.path, name)
}

// run executes argv through the runner and records it. A bare argv[0] is
// resolved on the search path first (the OS lookup Python's subprocess
// does); not found fails like exec would, with ENOENT naming the program.
func (s *state) run(c machine.Command) machine.Result {
	name := c.Argv[0]
	if c.Path == "" {
		c.Path = name
		if !filepathIsAbs(name) {
			p, ok := s.which(name)
			if !ok {
				r := machine.Result{ExitCode: -1, Err: &fs.PathError{Op: "exec", Path: name, Err: syscall.ENOENT}}
				s.record(c, r, nil)
				return r
			}
			c.Path = p
		}
	}
	key, shareable := onceKey(c)
	if !shareable {
		r, started := s.start(c)
		if started {
			s.record(c, r, nil)
		}
		return r
	}
	run, first := s.once.share(key)
	if !first {
		<-run.done // the first asker's run is killed at the deadline too
		if !run.ran {
			return s.run(c) // the first asker panicked: ask again
		}
		if !run.started || s.cutShort(run.res) {
			s.interrupted.Store(true)
		}
		if run.started {
			s.record(c, run.res, run)
		}
		return run.res
	}
	defer s.once.finish(key, run)
	run.res, run.started = s.start(c)
	run.ran = true
	if run.started {
		s.record(c, run.res, run)
	}
	return run.res
}

// start runs c through the runner, unless the collection has ended
// (started false: notStarted), and marks s interrupted when the deadline
// killed it.
func (s *state) start(c machine.Command) (r machine.Result, started bool) {
	if !s.flights.enter() {
		return s.notStarted(c), false
	}
	defer s.flights.leave()
	if s.ctx.Err() != nil || s.pastCut() {
		return s.notStarted(c), false
	}
	start := s.opt.Now()
	r = s.opt.Runner.Run(s.ctx, c)
	r.Duration = s.opt.Now().Sub(start)
	if s.notRunBeforeCut(r) {
		return s.notStarted(c), false
	}
	if c.StdoutTo != nil && r.Stdout != nil {
		// A Runner that captured what it was asked to stream (a test's).
		c.StdoutTo.Write(r.Stdout)
		r.StdoutN, r.Stdout = int64(len(r.Stdout)), nil
	}
	if s.cutShort(r) {
		s.interrupted.Store(true)
	}
	return r, true
}

// notStarted is the result of a command asked for after the deadline or
// SIGTERM ended the collection: it is not started (nor recorded), and reads
// as one killed at the deadline.
func (s *state) notStarted(machine.Command) machine.Result {
	s.interrupted.Store(true)
	return machine.Result{ExitCode: -int(syscall.SIGKILL), Err: machine.ErrTimeout}
}

// record lists c's run in s's commands; run is the shared run it came from
// (nil: not shareable), whose record mergeShared keeps once.
func (s *state) record(c machine.Command, r machine.Result, run *onceRun) {
	if n := s.cutRuns[s.name]; n != nil {
		n.Add(1) // a replayed probe the capture did not finish (cut.go)
	}
	rec := schema.CommandRecord{
		Argv:        s.redactArgv(c.Argv),
		DurationUS:  r.Duration.Microseconds(),
		StdoutBytes: len(r.Stdout),
		StderrBytes: len(r.Stderr),
		Truncated:   r.Truncated,
		TimedOut:    r.TimedOut(),
	}
	if c.StdoutTo != nil {
		rec.StdoutBytes = int(r.StdoutN) // streamed: all of it was used
	}
	if c.Dir != "" {
		rec.Dir = schema.Str(c.Dir)
	}
	if rc, ok := r.Exit(); ok {
		rec.ExitStatus = schema.Int(rc)
	} else {
		msg := r.Err.Error()
		if s.redact != nil {
			msg = s.redact(msg)
		}
		rec.Error = schema.Str(msg)
	}
	s.mu.Lock()
	s.commands = append(s.commands, cmdRecord{CommandRecord: rec, probe: s.name, run: run})
	s.mu.Unlock()
}

// Collect probes the machine opt describes and returns the document. It
// never fails: whatever cannot be read becomes null plus a reason, a probe
// that panics or misses the deadline leaves its not-captured shape and one
// reason, and cancelling ctx (SIGTERM) ends collection the same way.
func Collect(ctx context.Context, opt Options) *schema.Snapshot {
	opt = withDefaults(opt)
	started := opt.Now()
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(opt.bound, opt.Deadline))
	defer cancel()

	c := newCollector(ctx, opt)
	if opt.Workers >= unbounded {
		// The Python helper is what a default run waits for longest:
		// started before the probes are (docs/python.md, "Overlap").
		go c.python()
		go c.rocm()
		if !opt.NoProvenance {
			// rocm_installs runs after every block; its loader cache is
			// read now, while the Python helper runs (docs/python.md,
			// "Overlap").
			go c.ldCache()
		}
	} // else: serial under low limits; the first probe that needs the roots resolves them
	var gpus <-chan schema.GPUs
	var tuning <-chan tuningNode
	if !opt.NoProvenance && opt.Workers >= unbounded {
		gpus = startGPUs(c.root, gpusWorkers(opt)) // files only, beside the probes
		if !opt.skipTuning {
			tuning = startTuning(c.root, gpusWorkers(opt))
		}
	}
	states, durations := c.startProbes()

	snap := notCaptured(c)
	prov := newProvenance(opt, started)
	snap.Provenance = prov
	reasons := c.gather(states, durations, snap)
	if !opt.NoProvenance {
		if gpus == nil {
			gpus = startGPUs(c.root, gpusWorkers(opt))
		}
		g, done := awaitGPUs(ctx, gpus)
		if _, cut := c.cut.Probe(gpusBlock); cut || !done {
			// Not finished when the collection ended: the cause as the
			// table's probes give it; a replay says what the capture said
			// (cut.go), though its reads finish at once.
			why := c.interruption()
			if cut {
				why = c.cut.Why
			}
			if c.why == "" {
				c.why = why
			}
			g = unfinishedGPUs(why)
			c.gpusCut = true
			prov.DeadlineHit = true
		}
		prov.GPUs = &g
		if !opt.skipTuning {
			prov.Tuning = collectTuning(ctx, c, tuning, g, opt)
		}
	}

	// Kill what still runs (the probes abandoned by gather), refuse new
	// commands, and wait until every process group started is gone.
	cancel()
	select {
	case <-c.flights.close():
	case <-time.After(flightDrain):
	}
	c.removeTemps()
	if !opt.NoProvenance {
		ri := collectROCmInstalls(c, snap) // files only, no command
		prov.ROCmInstalls = &ri
	}
	// Every command started has returned and been recorded now, the ones
	// killed in abandoned probes included (what hung is what a reader of
	// a deadline_hit document wants to see).
	var all []cmdRecord
	for _, st := range states {
		all = append(all, st.allCommands()...)
	}
	prov.Commands = append(prov.Commands, mergeShared(all)...)
	if opt.Record != nil && prov.DeadlineHit {
		opt.Record.SetCut(c.cutOf(states, prov.Probes))
	}

	snap.PartialReasons = reasons
	snap.Partial = len(reasons) > 0
	end := opt.Now()
	// captured_at is the end of probing, whole seconds, UTC
	// (docs/fields-process.md#envelope).
	snap.CapturedAt = end.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
	prov.DurationUS = end.Sub(started).Microseconds()
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
	if !machine.IsArchive(opt.Root) {
		return Collect(ctx, opt), nil
	}
	if opt.Record != nil {
		return nil, fmt.Errorf("capture: --root %s is an archive; a replay is not captured again", opt.Root)
	}
	r, err := machine.LoadReplay(opt.Root, "")
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
// once (sites, kmd version, runtime type, the Python helper run, the ROCm
// roots) and one slot per row of the probe table. Tests build the partial
// collectors they need from it.
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
	c := &collector{opt: opt, root: root, ctx: ctx, isExec: isExec,
		hashes: newHashPool(opt.Workers), redact: opt.Buck.Context.Redact, path: opt.Path}
	if rp := opt.Replay; rp != nil { // replay of a capture (capture.go)
		root.SetFaults(rp.Faults())
		c.isExec = rp.IsExec(root)
		c.hashes.preload(rp)
		c.replayCut(rp.Cut()) // cut.go
	}
	if c.path == nil && opt.Root == "/" {
		c.path = machine.SearchPath(opt.Env)
	}
	c.sites = sync.OnceValue(func() []string { return pythonSiteDirs(c.root, opt.Env) })
	c.distInfos = sync.OnceValue(func() []siteDistInfos { return listDistInfos(c.root, c.sites()) })
	c.kmdVersion = sync.OnceValue(func() *string { return c.root.ReadText("/sys/module/amdgpu/version") })
	c.dpkg = sync.OnceValue(func() dpkgStatus { return readDpkgStatus(c.root) })
	c.ldCache = sync.OnceValue(func() map[string]string { return readLDCache(c.root) })
	c.runtimeType = sync.OnceValue(func() string { return detectRuntimeType(&state{collector: c}) })
	c.python = sync.OnceValue(func() *pyFacts { return runPythonBridge(c) })
	// Root discovery runs once, started before any probe
	// (docs/rocm-roots.md). Only when neither the environment, /opt/rocm nor
	// the filesystem's site-packages answer does it need the interpreter's
	// find_spec; the probes that need no roots do not wait for that.
	c.rootsDone = make(chan struct{})
	c.rocm = sync.OnceValue(func() rocmRoots {
		defer close(c.rootsDone)
		return resolveROCmRoots(c.root, opt.Env, opt.Cwd, c.sites, func() []string {
			sites := interpreterSites(c)
			c.rootsInterrupted = c.python().interrupted
			return sites
		})
	})
	c.table = probeTable()
	c.slots = make(map[string]*slot, len(c.table))
	for i, p := range c.table {
		c.slots[p.name] = &slot{index: i, done: make(chan struct{})}
	}
	return c
}

// startProbes starts every probe of the table, each in its goroutine
// publishing into its slot: at most Workers at once, in table order. It
// returns each probe's state and the slice its duration is written to.
func (c *collector) startProbes() ([]*state, []time.Duration) {
	table := c.table
	states := make([]*state, len(table))
	for i, p := range table {
		states[i] = &state{collector: c, name: p.name}
	}
	durations := make([]time.Duration, len(table))
	start := func(i int, done func()) {
		p, st, sl := table[i], states[i], c.slots[table[i].name]
		sl.started.Store(true)
		if c.cutNotStarted(p.name) {
			// Never started in the capture replayed (cut.go).
			close(sl.done)
			done()
			return
		}
		go func() {
			defer done()
			t0 := c.opt.Now()
			defer func() {
				if v := recover(); v != nil {
					// Redacted like every exception text in a reason
					// (docs/buck2.md#context-fingerprint): a panic may quote
					// Buck argv.
					msg := fmt.Sprint(v)
					if c.redact != nil {
						msg = c.redact(msg)
					}
					st.reason("collect_env: unexpected failure (panic in %s probe: %s)", p.name, msg)
					sl.ok = false
				}
				durations[i] = c.opt.Now().Sub(t0)
				_, cut := c.cut.Probe(p.name)
				sl.guess = st.interrupted.Load() || cut
				close(sl.done)
			}()
			sl.value = p.run(st)
			sl.ok = true
		}()
	}
	if c.opt.Workers >= len(table) {
		for i := range table {
			start(i, func() {})
		}
		return states, durations
	}
	// At most Workers probes at once, started in table order: a probe only
	// awaits earlier ones (await), which hold or have released their slot,
	// so this cannot deadlock. Past the deadline no new probe starts; those
	// left are reported as not captured.
	sem := make(chan struct{}, c.opt.Workers)
	go func() {
		for i := range table {
			select {
			case sem <- struct{}{}:
			case <-c.ctx.Done():
				return
			}
			start(i, func() { <-sem })
		}
	}()
	return states, durations
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

// gather waits for each probe in table order and stores what finished in
// time into snap, recording each in snap.Provenance; it returns the
// partial reasons in table order. Once the deadline passes (or SIGTERM),
// every command is killed, so a probe that was only waiting on one
// finishes at once with what it has; those still running after probeGrace
// are abandoned. A row not captured keeps its not-captured shape, with
// what its missing hook fills in from the roots resolved so far.
func (c *collector) gather(states []*state, durations []time.Duration, snap *schema.Snapshot) []string {
	prov := snap.Provenance
	reasons := []string{}
	grace := context.Background()
	var missing []probe
	for i, p := range c.table {
		sl, st := c.slots[p.name], states[i]
		select {
		case <-sl.done:
		case <-c.ctx.Done():
			if grace == context.Background() {
				var stop context.CancelFunc
				grace, stop = context.WithTimeout(context.Background(), probeGrace)
				defer stop()
			}
			select {
			case <-sl.done:
			case <-grace.Done():
			}
		}
		rec := schema.ProbeRecord{Name: p.name, Outcome: "deadline", Reasons: 1}
		_, cut := c.cut.Probe(p.name)
		select {
		case <-sl.done:
			if !st.interrupted.Load() && !cut {
				rec = finished(p, sl, st, durations[i], snap)
			}
		default:
		}
		if rec.Outcome == "deadline" {
			prov.DeadlineHit = true
			why := c.interruption()
			if cut {
				why = c.cut.Why // what the live document said (cut.go)
			}
			if c.why == "" {
				c.why = why
			}
			reasons = append(reasons, fmt.Sprintf("%s: not captured (%s)", p.name, why))
		} else {
			reasons = append(reasons, st.reasons...)
		}
		if rec.Outcome != "ok" && rec.Outcome != "partial" && p.missing != nil {
			missing = append(missing, p)
		}
		prov.Probes = append(prov.Probes, rec)
	}
	// A rocm or therock block that was not captured still names the roots as
	// far as they were resolved
	// (docs/fields-process.md#the-not-captured-document).
	r, known := c.rootsAtEnd()
	c.rootsUnresolved = !known
	for _, p := range missing {
		p.missing(snap, r)
	}
	return reasons
}

// finished is the record of a probe that returned in time, its block
// stored into snap unless it panicked.
func finished(p probe, sl *slot, st *state, d time.Duration, snap *schema.Snapshot) schema.ProbeRecord {
	rec := schema.ProbeRecord{Name: p.name, Outcome: "panic", DurationUS: d.Microseconds(), Reasons: len(st.reasons)}
	if sl.ok {
		p.put(snap, sl.value)
		rec.Outcome = "ok"
		if len(st.reasons) > 0 {
			rec.Outcome = "partial"
		}
	}
	return rec
}

// removeAtEnd registers a temp file of this collection for removal when
// Collect returns, whatever the probe that created it is doing then (a
// probe abandoned at the deadline may never reach its own cleanup: main
// exits once the document is written).
func (c *collector) removeAtEnd(p string) {
	c.tempMu.Lock()
	c.temps = append(c.temps, p)
	c.tempMu.Unlock()
}

// removeTemps removes the files of removeAtEnd (already removed is fine).
func (c *collector) removeTemps() {
	c.tempMu.Lock()
	defer c.tempMu.Unlock()
	for _, p := range c.temps {
		os.Remove(p)
	}
	c.temps = nil
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
