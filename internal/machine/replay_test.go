package machine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fileRunner is a Runner whose command writes body to its OutFile, or
// removes it when body is nil.
type fileRunner struct{ body []byte }

// TestReplayOutFile: a command's OutFile is recorded with it; the replay
// matches the argv whatever the temp file's name and writes the recorded
// content to the new file, or removes the file the command had removed.
func TestReplayOutFile(t *testing.T) {
	for _, body := range [][]byte{[]byte(`{"rdhc_version": "1.4.0"}`), nil} {
		root := t.TempDir()
		os.Mkdir(filepath.Join(root, "tmp"), 0o755)
		rc := NewRecorder(false)
		keep := func(argv []string) []string { return argv }
		opt := rc.Attach(Seams{Root: root, Runner: fileRunner{body}, Cwd: "/"}, NewFS(root, "/", false), Policy{RedactArgv: keep})
		live := filepath.Join(root, "tmp", "rdhc_quick_abcdefgh.json")
		os.WriteFile(live, nil, 0o600)
		opt.Runner.Run(context.Background(), Command{Argv: []string{"sudo", "rdhc", "--json", live}, OutFile: live})
		a, err := ParseCapture(rc.Archive("test\n"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReplay(a, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(filepath.Join(r.dir, "tmp")); err != nil || !fi.IsDir() {
			t.Fatalf("the temp directory is not in the archive: %v", err)
		}
		other := "/tmp/rdhc_quick_zyxwvuts.json"
		host := filepath.Join(r.dir, other)
		os.WriteFile(host, nil, 0o600)
		res := replayRunner{r: r, redact: keep}.Run(context.Background(), Command{Argv: []string{"sudo", "rdhc", "--json", other}, OutFile: other})
		if res.Err != nil {
			t.Fatalf("body %q: %v", body, res.Err)
		}
		got, err := os.ReadFile(host)
		if body == nil {
			if err == nil {
				t.Errorf("the replay left the file the command removed")
			}
		} else if string(got) != string(body) {
			t.Errorf("replayed out file %q, want %q", got, body)
		}
	}
}

func (f fileRunner) Run(_ context.Context, c Command) Result {
	if f.body == nil {
		os.Remove(c.OutFile)
	} else {
		os.WriteFile(c.OutFile, f.body, 0o600)
	}
	return Result{}
}

// cutRunner answers as a command the end of the collection killed.
type cutRunner struct{}

func (cutRunner) Run(context.Context, Command) Result {
	return Result{ExitCode: -9, Err: ErrTimeout}
}

// TestReplayCut: where a collection was cut short, and which commands
// the cut killed, come back from the archive as recorded; a command that
// timed out by itself is not taken for one the cut killed.
func TestReplayCut(t *testing.T) {
	root := t.TempDir()
	rc := NewRecorder(false)
	keep := func(argv []string) []string { return argv }
	opt := rc.Attach(Seams{Root: root, Runner: cutRunner{}, Cwd: "/"}, NewFS(root, "/", false), Policy{RedactArgv: keep})
	opt.Runner.Run(context.Background(), Command{Argv: []string{"slow", "--own-timeout"}})
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	opt.Runner.Run(ended, Command{Argv: []string{"slow", "--cut"}})
	want := Cut{Why: "deadline of 300ms exceeded", Unfinished: []CutProbe{{"hip", 2}, {"gpu_arch", 0}},
		NotStarted: []string{"gpu_arch"}, RootsUnresolved: true}
	rc.SetCut(want)
	a, err := ParseCapture(rc.Archive("test\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay(a, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Cut(); got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("cut %+v, want %+v", got, want)
	}
	if n, ok := r.Cut().Probe("hip"); !ok || n != 2 {
		t.Errorf("Probe(hip) = %d, %v", n, ok)
	}
	if _, ok := r.Cut().Probe("host"); ok {
		t.Errorf("host was finished")
	}
	run := replayRunner{r: r, redact: keep}
	if res := run.Run(context.Background(), Command{Argv: []string{"slow", "--own-timeout"}}); !res.TimedOut() || res.Cut {
		t.Errorf("own timeout replayed as %+v", res)
	}
	if res := run.Run(context.Background(), Command{Argv: []string{"slow", "--cut"}}); !res.TimedOut() || !res.Cut {
		t.Errorf("killed by the cut replayed as %+v", res)
	}
	var none *Cut
	if _, ok := none.Probe("hip"); ok {
		t.Errorf("no cut, yet hip unfinished")
	}
}
