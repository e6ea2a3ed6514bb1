package probe

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

// captureScenario collects the scenario archive with a Recorder and
// returns the document and the capture archive.
func captureScenario(t *testing.T, scenario string) ([]byte, []byte, Options) {
	t.Helper()
	root := testtree.TempDir(t)
	a, err := fakeroot.Materialize(scenario, root)
	if err != nil {
		t.Fatal(err)
	}
	opt := scenarioOptions(t, root, a)
	opt.Record = archive.NewRecorder(false)
	snap := Collect(context.Background(), opt)
	normalizeScenario(snap, root)
	return pyjson.Encode(snap), opt.Record.Archive("test capture\n"), opt
}

// replayArchive collects from a capture archive.
func replayArchive(t *testing.T, data []byte, base Options) []byte {
	t.Helper()
	a, err := archive.ParseCapture(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := archive.NewReplay(a, testtree.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	// --buck-option values are never in an archive: the replay is given
	// them again, as a user would (and --tuning-state).
	opt := replayOptions(r, Options{Now: fixedNow, Buck: base.Buck, TuningState: base.TuningState})
	snap := Collect(context.Background(), opt)
	snap.Provenance.Root = "/"
	// The one difference a replay names: its identity is the captured
	// process's (docs/capture.md) — when the probe_namespace block was
	// captured at all (a capture cut short may not have finished it).
	captured := false
	for _, p := range snap.Provenance.Probes {
		captured = captured || p.Name == "probe_namespace" && p.Outcome != "deadline"
	}
	if got := snap.Provenance.Identity.AnsweredBy; got != "capture" && captured {
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

// noCommandTwice fails when the capture archive holds one command (argv
// and meta: directory, stdin, exit) twice: the collection runs each
// command once (run_once.go), and so the recorder records it once.
func noCommandTwice(t *testing.T, archive []byte) {
	t.Helper()
	a, err := fakeroot.Parse(archive)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range a.Files {
		files[f.Path] = f.Data
	}
	seen := map[string]string{}
	for p, argv := range files {
		base, ok := strings.CutSuffix(p, ".argv")
		if !ok || !strings.HasPrefix(p, ".capture/cmd/") {
			continue
		}
		k := string(argv) + "\x01" + string(files[base+".meta"])
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s record the same command %q", other, base, strings.ReplaceAll(string(argv), "\x00", " "))
		}
		seen[k] = base
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
		if a, err := fakeroot.Parse(data); err != nil || archive.IsCapture(a) {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			live, archive, opt := captureScenario(t, path)
			if bytes.Contains(archive, []byte("must-never-appear")) {
				t.Errorf("a non-knob environment value is in the archive")
			}
			for _, o := range opt.Buck.Context.ConfigOverrides() {
				if _, v, _ := strings.Cut(o, "="); len(v) >= 4 && bytes.Contains(archive, []byte(v)) {
					t.Errorf("Buck config value %q is in the archive", v)
				}
			}
			noCommandTwice(t, archive)
			got := replayArchive(t, archive, opt)
			if !bytes.Equal(live, got) {
				t.Errorf("replay differs from the live document:\n%s", golden.LineDiff(live, got))
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d scenarios", n)
	}
}

// hangRunner runs commands with inner, except those named in hang (by
// base name; every command when hang is nil), which wait for the end of the collection and are killed
// by it, as ExecRunner's are; cut, when set, is called as the first of
// them starts.
type hangRunner struct {
	inner machine.Runner
	hang  []string
	cut   func()
}

func (h hangRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	if h.hang != nil && !slices.Contains(h.hang, filepath.Base(c.Argv[0])) {
		return h.inner.Run(ctx, c)
	}
	if h.cut != nil {
		h.cut()
	}
	<-ctx.Done()
	return machine.Result{ExitCode: -int(syscall.SIGKILL), Err: machine.ErrTimeout}
}
