package probe

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// TestCaptureReplayCut (issue 28, item 2): every scenario captured while
// its slow tools hang, the collection cut short by a signal as the first
// of them starts (or the first command of all) or by a 300ms deadline
// (with all probes at once, or one at a time, which leaves some never
// started), replays byte for byte to the
// live document (the clock is fixed, so timings agree too): the blocks
// the capture did not finish say what the live document said of them,
// the commands the cut killed are listed as killed, no other cause
// appears.
func TestCaptureReplayCut(t *testing.T) {
	t.Parallel()
	archives, _ := filepath.Glob("../testdata/roots/*.txtar")
	hang := []string{"hipconfig", "rocm_agent_enumerator", "python3", "python", "rocminfo", "amd-smi", "ip"}
	var cuts, notStarted atomic.Int32
	// Once every case has run (they run in parallel): enough of them were
	// cut, and some left probes never started.
	t.Cleanup(func() {
		t.Logf("%d captures cut short, %d leaving probes never started", cuts.Load(), notStarted.Load())
		if notStarted.Load() == 0 {
			t.Errorf("no capture left a probe never started: that path is untested")
		}
		if cuts.Load() < 15 {
			t.Errorf("only %d captures were cut short: the test proves little", cuts.Load())
		}
	})
	for _, path := range archives {
		data, _ := os.ReadFile(path)
		if a, err := fakeroot.Parse(data); err != nil || archive.IsCapture(a) {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		for _, how := range []string{"signal", "signal at the first command", "deadline", "deadline, one worker"} {
			t.Run(name+"/"+how, func(t *testing.T) {
				t.Parallel()
				root := testtree.TempDir(t)
				a, err := fakeroot.Materialize(path, root)
				if err != nil {
					t.Fatal(err)
				}
				opt := scenarioOptions(t, root, a)
				opt.Record = archive.NewRecorder(false)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				h := hangRunner{inner: opt.Runner, hang: hang}
				if how == "signal at the first command" {
					h.hang = nil
				}
				if how != "deadline" {
					var once sync.Once
					h.cut = func() { once.Do(cancel) }
				} else {
					opt.Deadline = 300 * time.Millisecond
				}
				if how == "deadline, one worker" {
					opt.Workers = 1 // probes left unstarted at the deadline
				}
				opt.Runner = h
				snap := Collect(ctx, opt)
				normalizeScenario(snap, root)
				if !snap.Provenance.DeadlineHit {
					return // nothing hung here: no cut
				}
				cuts.Add(1)
				live := pyjson.Encode(snap)
				archive := opt.Record.Archive("test capture\n")
				if !bytes.Contains(archive, []byte("\ncut: ")) {
					t.Fatalf("a cut capture whose archive does not say so")
				}
				if bytes.Contains(archive, []byte("\ncut-not-started: ")) {
					notStarted.Add(1)
				}
				got := replayArchive(t, archive, opt)
				if !bytes.Equal(live, got) {
					t.Errorf("replay differs from the live document:\n%s", golden.LineDiff(live, got))
				}
			})
		}
	}
}
