package probe

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"sync"

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
