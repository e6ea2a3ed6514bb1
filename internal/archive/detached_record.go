package archive

import (
	"io/fs"
	"syscall"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
)

// A capture of reads made by a detached child (detached.go): the child
// watches its own FS with a Recorder of its own (WatchDetached), which
// also reads what the archive keeps of each file (its content, or the
// printable runs of a large one) there, never in the probe; it sends
// what it met (Recorded) with its answer, and the probe's Recorder takes
// it in (Absorb) as if its own FS had met it.

// Recorded is what a child's Recorder met: the paths with what the
// filesystem showed of each, and the errors it recorded.
type Recorded struct {
	Entries []RecordedPath `py:"entries"`
	Errs    []RecordedErr  `py:"errs"`
}

// RecordedPath is one path a Recorder met (recEntry).
type RecordedPath struct {
	Path      string `py:"path"`
	Missing   bool   `py:"missing"`
	Kind      int    `py:"kind"` // fs.FileMode type bits
	Link      string `py:"link"`
	Perm      int    `py:"perm"`
	Size      int64  `py:"size"`
	Content   string `py:"content"`
	Kept      bool   `py:"kept"`
	Reads     int    `py:"reads"`
	HashReads int    `py:"hash_reads"`
	Sum       string `py:"sum"`
	// Runs are a large file's printable runs (textRuns), read by the
	// child; Scanned says they were.
	Runs    []RecordedRun `py:"runs"`
	Scanned bool          `py:"scanned"`
}

// RecordedRun is one printable run of a large file, at its offset.
type RecordedRun struct {
	Off  int64  `py:"off"`
	Data string `py:"data"`
}

// RecordedErr is one recorded error: "open /path" and its errno.
type RecordedErr struct {
	Key   string `py:"key"`
	Errno int    `py:"errno"`
}

// WatchDetached returns a Recorder that watches root (in a detached
// child) with scanBudget as Policy.ScanBudget; Export gives what it met.
func WatchDetached(root *machine.FS, scanBudget int64) *Recorder {
	rc := NewRecorder(false)
	rc.fs = root.Twin()
	rc.policy.ScanBudget = scanBudget
	root.Watch(rc)
	return rc
}

// Export is what rc met, each large file read beyond hashing scanned for
// its printable runs now (the archive would read them at Archive).
func (rc *Recorder) Export() Recorded {
	same := func(s string) string { return s }
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out Recorded
	for _, p := range capKeys(rc.entries) {
		e := rc.entries[p]
		rp := RecordedPath{Path: p, Missing: e.missing, Kind: int(e.kind), Link: e.link, Perm: int(e.perm),
			Size: e.size, Content: string(e.content), Kept: e.kept, Reads: e.reads, HashReads: e.hashReads, Sum: e.sum}
		if e.kind == 0 && !e.missing && !e.kept && e.reads > e.hashReads {
			rp.Scanned = true
			for _, c := range rc.textRuns(p, same) {
				rp.Runs = append(rp.Runs, RecordedRun{Off: c.Off, Data: string(c.Data)})
			}
		}
		out.Entries = append(out.Entries, rp)
	}
	for _, k := range capKeys(rc.errs) {
		out.Errs = append(out.Errs, RecordedErr{Key: k, Errno: int(rc.errs[k])})
	}
	return out
}

// Absorb takes in what a child's Recorder met (Export). A path rc met
// itself keeps what rc saw of it; its reads add up, and a content the
// child kept fills one rc did not.
func (rc *Recorder) Absorb(r Recorded) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, rp := range r.Entries {
		e := &recEntry{missing: rp.Missing, kind: fs.FileMode(rp.Kind), link: rp.Link, perm: fs.FileMode(rp.Perm),
			size: rp.Size, content: []byte(rp.Content), kept: rp.Kept, reads: rp.Reads, hashReads: rp.HashReads, sum: rp.Sum}
		if rp.Scanned {
			e.scanned = true
			e.runs = []fakeroot.Chunk{}
			for _, c := range rp.Runs {
				e.runs = append(e.runs, fakeroot.Chunk{Off: c.Off, Data: []byte(c.Data)})
			}
		}
		old, ok := rc.entries[rp.Path]
		if !ok {
			rc.entries[rp.Path] = e
			continue
		}
		old.reads += e.reads
		old.hashReads += e.hashReads
		if !old.kept && e.kept {
			old.content, old.kept = e.content, true
		}
		if !old.scanned && e.scanned {
			old.runs, old.scanned = e.runs, true
		}
		if old.sum == "" {
			old.sum = e.sum
		}
	}
	for _, re := range r.Errs {
		if _, ok := rc.errs[re.Key]; !ok {
			rc.errs[re.Key] = syscall.Errno(re.Errno)
		}
	}
}

// redactRuns is runs with red applied to each.
func redactRuns(runs []fakeroot.Chunk, red func(string) string) []fakeroot.Chunk {
	out := make([]fakeroot.Chunk, len(runs))
	for i, c := range runs {
		out[i] = fakeroot.Chunk{Off: c.Off, Data: []byte(red(string(c.Data)))}
	}
	return out
}
