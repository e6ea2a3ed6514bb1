package probe

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"aorta-probe/internal/machine"
	"aorta-probe/schema"
)

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
	// doc is the document as the other rows left it: set for a lastRow
	// (runLast) only.
	doc *schema.Snapshot

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
