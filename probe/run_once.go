package probe

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"strconv"
	"sync"
	"syscall"

	"aorta-probe/internal/machine"
	"aorta-probe/schema"
)

// Each command once (docs/fields-process.md#probe_provenancecommands-each-command-once):
// within one collection, a command asked for again — the same executable,
// argv, directory, added environment, stdin and limits — is answered from
// the first run's result instead of being started a second time
// (`modinfo amdgpu` is asked once per field). Asked at the same time, the
// second asker waits for the first run, as singleflight does. The result is
// the same bytes either way, so the document cannot depend on which probe
// ran it. probe_provenance.commands lists the run once, in the place of the
// earliest asker, and its shared_by names every probe that asked.
//
// A command that streams (StdinFrom, StdoutTo) or writes a file (OutFile)
// is always run: its answer is not only its result.

// onceRun is one command run shared by every ask of its key.
type onceRun struct {
	done chan struct{} // closed once res is set
	res  machine.Result
	// started is false for a command asked for once the collection had
	// ended (state.notStarted): never started, never recorded.
	started bool
	// ran is false when the first asker panicked in the Runner: the
	// others then run the command themselves.
	ran bool
}

// runMemo is the collection's runs by key.
type runMemo struct {
	mu   sync.Mutex
	runs map[string]*onceRun
}

// onceKey is the identity of c for sharing; ok is false when c must
// always run.
func onceKey(c machine.Command) (key string, ok bool) {
	if c.StdinFrom != nil || c.StdoutTo != nil || c.OutFile != "" {
		return "", false
	}
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(c.Path)
	field(strconv.Itoa(len(c.Argv)))
	for _, a := range c.Argv {
		field(a)
	}
	field(c.Dir)
	field(strconv.Itoa(len(c.Env)))
	for _, e := range c.Env {
		field(e)
	}
	if c.Stdin == nil {
		field("stdin:null")
	} else {
		field("stdin:" + string(c.Stdin))
	}
	field(c.Timeout.String())
	field(strconv.Itoa(c.MaxOutput) + "/" + strconv.Itoa(c.MaxStderr) + "/" + strconv.FormatInt(c.MemoryLimit, 10))
	return hex.EncodeToString(h.Sum(nil)), true
}

// share returns the run of key: first is true for the asker that must run
// it and then call finish; the others get the run to wait on.
func (m *runMemo) share(key string) (r *onceRun, first bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.runs[key]; ok {
		return r, false
	}
	if m.runs == nil {
		m.runs = map[string]*onceRun{}
	}
	r = &onceRun{done: make(chan struct{})}
	m.runs[key] = r
	return r, true
}

// finish publishes the first asker's run (r.res, r.started and r.ran set
// before; ran still false: it panicked) and wakes the waiters. A run that
// did not complete is forgotten, so a later ask runs the command itself.
func (m *runMemo) finish(key string, r *onceRun) {
	if !r.ran {
		m.mu.Lock()
		delete(m.runs, key)
		m.mu.Unlock()
	}
	close(r.done)
}

// cmdRecord is one entry of a state's command list: the record, the probe
// that asked, and the shared run it came from (nil: not shared).
type cmdRecord struct {
	schema.CommandRecord
	probe string
	run   *onceRun
}

// mergeShared is the collection's command list: each shared run kept once,
// where it was first asked for in the list's order, with shared_by naming
// every asker (one entry per ask) when more than one asked.
func mergeShared(all []cmdRecord) []schema.CommandRecord {
	out := make([]schema.CommandRecord, 0, len(all))
	at := map[*onceRun]int{}
	askers := map[*onceRun][]string{}
	for _, c := range all {
		if c.run == nil {
			out = append(out, c.CommandRecord)
			continue
		}
		askers[c.run] = append(askers[c.run], c.probe)
		if _, seen := at[c.run]; seen {
			continue
		}
		at[c.run] = len(out)
		out = append(out, c.CommandRecord)
	}
	for run, i := range at {
		if names := askers[run]; len(names) > 1 {
			out[i].SharedBy = &names
		}
	}
	return out
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
	return s.runOnce(c)
}

// runOnce is the protocol of this file for c, its executable resolved: a
// command that may be shared is run by its first asker, and the others
// wait for that run and record it too (mergeShared keeps it once); one
// that may not is run for each asker.
func (s *state) runOnce(c machine.Command) machine.Result {
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
			return s.runOnce(c) // the first asker panicked: ask again
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
