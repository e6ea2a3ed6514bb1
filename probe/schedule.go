package probe

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"aorta-probe/schema"
)

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

// schedule is how one collection runs the probe table's rows and their
// commands.
type schedule struct {
	// reader is where the gpus block and the tuning block's GPU reads
	// come from, started once by whichever row asks first (gpuReader).
	readerOnce sync.Once
	reader     gpuReader
	// table is the probe table (table.go) and slots its results by name;
	// states and durations are each row's, by table index (startProbes).
	table     []probe
	slots     map[string]*slot
	states    []*state
	durations []time.Duration
	// temps are host files this collection created (the rdhc output
	// file), removed when Collect returns even if the probe that made
	// one was abandoned (removeAtEnd).
	tempMu sync.Mutex
	temps  []string
	// flights counts the commands running now, so that Collect returns
	// only once every command it started has been killed and reaped.
	flights flights
	// once answers a command asked for again from its first run
	// (run_once.go).
	once runMemo
}

// rowKind is when a row of the probe table runs and where its block goes.
type rowKind int

const (
	// documentRow: one of the document's probes, run under the Workers
	// bound, gathered in table order, with a record in
	// probe_provenance.probes and its reasons in partial_reasons.
	documentRow rowKind = iota
	// besideRow: a probe_provenance block read beside the document's
	// probes, outside the Workers bound (with a bound, once they are
	// gathered), awaited until the collection ends and reported in no
	// probe record; one the collection ended before is the row's
	// unfinished block. The gpus block: its reads may hang for good, so
	// it has its own reader (gpus_detached.go), which also makes the
	// tuning block's reads of the GPUs.
	besideRow
	// lastRow: a probe_provenance block read once every other block is in
	// the document and every command has ended (state.doc), files only:
	// rocm_installs, which reads the rocm and hip blocks as the document
	// holds them.
	lastRow
)

// probe is one row of the probe table: it computes a block and, once it has
// finished in time, stores it into the snapshot.
type probe struct {
	name string
	run  func(*state) any
	put  func(*schema.Snapshot, any)
	// kind is when the row runs (documentRow unless beside or last). The
	// rows of other kinds are blocks of probe_provenance alone: a
	// collection without it (NoProvenance) does not run them.
	kind rowKind
	// missing, when set, fills the not-captured block with the ROCm roots
	// as far as they were resolved (rootsWhenMissing).
	missing func(*schema.Snapshot, rocmRoots)
	// unfinished is a besideRow's block when the collection ended before
	// it, with the cause.
	unfinished func(why string) any
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

// beside makes p a besideRow whose block is unfinished(why) when the
// collection ends before it.
func beside[T any](p probe, unfinished func(why string) T) probe {
	p.kind = besideRow
	p.unfinished = func(why string) any { return unfinished(why) }
	return p
}

// last makes p a lastRow.
func (p probe) last() probe {
	p.kind = lastRow
	return p
}

// setTable makes c's table of rows, without the probe_provenance rows
// when the collection has no provenance (and without the tuning row for
// the benchmarks that measure it, Options.skipTuning), and one slot per
// row.
func (c *collector) setTable(rows []probe) {
	if c.opt.NoProvenance {
		rows = slices.DeleteFunc(rows, func(p probe) bool { return p.kind != documentRow })
	}
	if c.opt.skipTuning {
		rows = slices.DeleteFunc(rows, func(p probe) bool { return p.name == tuningBlock })
	}
	c.table = rows
	c.slots = make(map[string]*slot, len(rows))
	for i, p := range rows {
		c.slots[p.name] = &slot{index: i, done: make(chan struct{})}
	}
}

// startProbes starts the rows of the table that run at once, each in its
// goroutine publishing into its slot: the beside rows first when nothing
// bounds the workers, then the document's rows, at most Workers at once,
// in table order.
func (c *collector) startProbes() {
	c.states = make([]*state, len(c.table))
	for i, p := range c.table {
		c.states[i] = &state{collector: c, name: p.name}
	}
	c.durations = make([]time.Duration, len(c.table))
	var rows []int
	for i, p := range c.table {
		switch {
		case p.kind == besideRow && c.opt.Workers >= unbounded:
			c.startRow(i, func() {})
		case p.kind == documentRow:
			rows = append(rows, i)
		}
	}
	if c.opt.Workers >= len(rows) {
		for _, i := range rows {
			c.startRow(i, func() {})
		}
		return
	}
	// At most Workers probes at once, started in table order: a probe only
	// awaits earlier ones (await), which hold or have released their slot,
	// so this cannot deadlock. Past the deadline no new probe starts; those
	// left are reported as not captured.
	sem := make(chan struct{}, c.opt.Workers)
	go func() {
		for _, i := range rows {
			select {
			case sem <- struct{}{}:
			case <-c.ctx.Done():
				return
			}
			c.startRow(i, func() { <-sem })
		}
	}()
}

// startRow starts row i in its goroutine, which publishes into its slot
// and calls done once the row returned (at once for a row the capture
// replayed never started).
func (c *collector) startRow(i int, done func()) {
	p, st, sl := c.table[i], c.states[i], c.slots[c.table[i].name]
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
			c.durations[i] = c.opt.Now().Sub(t0)
			_, cut := c.cut.Probe(p.name)
			sl.guess = st.interrupted.Load() || cut
			close(sl.done)
		}()
		sl.value = p.run(st)
		sl.ok = true
	}()
}

// gather waits for each of the document's probes in table order and
// stores what finished in time into snap, recording each in
// snap.Provenance; it returns the partial reasons in table order. Once the
// deadline passes (or SIGTERM), every command is killed, so a probe that
// was only waiting on one finishes at once with what it has; those still
// running after probeGrace are abandoned. A row not captured keeps its
// not-captured shape, with what its missing hook fills in from the roots
// resolved so far.
func (c *collector) gather(snap *schema.Snapshot) []string {
	prov := snap.Provenance
	reasons := []string{}
	grace := context.Background()
	var missing []probe
	for i, p := range c.table {
		if p.kind != documentRow {
			continue
		}
		sl, st := c.slots[p.name], c.states[i]
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
				rec = finished(p, sl, st, c.durations[i], snap)
			}
		default:
		}
		if rec.Outcome == "deadline" {
			prov.DeadlineHit = true
			reasons = append(reasons, fmt.Sprintf("%s: not captured (%s)", p.name, c.whyUnfinished(cut)))
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

// gatherBeside stores the beside rows' blocks into snap, starting those
// the Workers bound kept back, and waiting for each until the collection
// ends (then probeGrace at most: a beside row's own wait ends with the
// collection). One the collection ended before (or, replayed, the
// capture's had) is its unfinished block with the cause, and a capture's
// cut names it.
func (c *collector) gatherBeside(snap *schema.Snapshot) {
	for i, p := range c.table {
		if p.kind != besideRow {
			continue
		}
		sl, st := c.slots[p.name], c.states[i]
		if !sl.started.Load() {
			c.startRow(i, func() {})
		}
		select {
		case <-sl.done:
		case <-c.ctx.Done():
			select {
			case <-sl.done:
			case <-time.After(probeGrace):
			}
		}
		_, cut := c.cut.Probe(p.name)
		var v any
		ok := false
		select {
		case <-sl.done:
			v, ok = sl.value, sl.ok && !st.interrupted.Load() && !cut
		default:
		}
		if !ok {
			// Not finished when the collection ended: the cause as the
			// table's probes give it; a replay says what the capture said
			// (cut.go), though its reads finish at once.
			v = p.unfinished(c.whyUnfinished(cut))
			c.unfinished = append(c.unfinished, p.name)
			snap.Provenance.DeadlineHit = true
		}
		p.put(snap, v)
	}
}

// drain refuses new commands and waits (flightDrain at most) until every
// process group started is gone, then removes the collection's temp files.
func (c *collector) drain() {
	select {
	case <-c.flights.close():
	case <-time.After(flightDrain):
	}
	c.removeTemps()
}

// runLast runs the last rows, in table order, on the document as the
// other rows left it, and stores their blocks.
func (c *collector) runLast(snap *schema.Snapshot) {
	for i, p := range c.table {
		if p.kind == lastRow {
			st := c.states[i]
			st.doc = snap
			p.put(snap, p.run(st))
		}
	}
}

// listCommands lists every command of the collection in prov: every
// command started has returned and been recorded now, the ones killed in
// abandoned probes included (what hung is what a reader of a deadline_hit
// document wants to see). A capture cut short records its cut.
func (c *collector) listCommands(prov *schema.Provenance) {
	var all []cmdRecord
	for _, st := range c.states {
		all = append(all, st.allCommands()...)
	}
	prov.Commands = append(prov.Commands, mergeShared(all)...)
	if c.opt.Record != nil && prov.DeadlineHit {
		c.opt.Record.SetCut(c.cutOf(prov.Probes))
	}
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
