package probe

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// captureScenario collects the scenario archive with a Recorder and
// returns the document and the capture archive.
func captureScenario(t *testing.T, archive string) ([]byte, []byte, Options) {
	t.Helper()
	root := t.TempDir()
	a, err := fakeroot.Materialize(archive, root)
	if err != nil {
		t.Fatal(err)
	}
	opt := scenarioOptions(t, root, a)
	opt.Record = machine.NewRecorder(false)
	snap := Collect(context.Background(), opt)
	normalizeScenario(snap, root)
	return pyjson.Encode(snap), opt.Record.Archive("test capture\n"), opt
}

// replayArchive collects from a capture archive.
func replayArchive(t *testing.T, data []byte, base Options) []byte {
	t.Helper()
	a, err := fakeroot.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := machine.NewReplay(a, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// --buck-option values are never in an archive: the replay is given
	// them again, as a user would.
	opt := replayOptions(r, Options{Now: fixedNow, Buck: base.Buck})
	snap := Collect(context.Background(), opt)
	snap.Provenance.Root = "/"
	// The one difference a replay names: its identity is the captured
	// process's (docs/capture.md).
	if got := snap.Provenance.Identity.AnsweredBy; got != "capture" {
		t.Errorf("replay: identity.answered_by = %q, want capture", got)
	}
	snap.Provenance.Identity.AnsweredBy = "kernel"
	return pyjson.Encode(snap)
}

func normalizeScenario(snap *schema.Snapshot, root string) {
	snap.Provenance.Root = "/"
	for i := range snap.Provenance.Commands {
		argv := snap.Provenance.Commands[i].Argv
		for j := range argv {
			argv[j] = strings.ReplaceAll(argv[j], root, "")
		}
	}
}

// TestCaptureReplay: every scenario captured and replayed gives the same
// document as the live collection (the clock is fixed, so timings agree
// too), and the replay runs no command.
func TestCaptureReplay(t *testing.T) {
	t.Parallel()
	archives, _ := filepath.Glob("../testdata/roots/*.txtar")
	n := 0
	for _, path := range archives {
		data, _ := os.ReadFile(path)
		if a, err := fakeroot.Parse(data); err != nil || machine.IsCapture(a) {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			live, archive, opt := captureScenario(t, path)
			if bytes.Contains(archive, []byte("must-never-appear")) {
				t.Errorf("a non-knob environment value is in the archive")
			}
			for _, o := range opt.Buck.Context.ConfigOverrides() {
				if _, v, _ := strings.Cut(o, "="); len(v) >= 4 && bytes.Contains(archive, []byte(v)) {
					t.Errorf("Buck config value %q is in the archive", v)
				}
			}
			got := replayArchive(t, archive, opt)
			if !bytes.Equal(live, got) {
				t.Errorf("replay differs from the live document:\n%s", lineDiff(live, got))
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d scenarios", n)
	}
}
