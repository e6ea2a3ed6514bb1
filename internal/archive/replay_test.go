package archive

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
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
		opt := rc.Attach(machine.Seams{Root: root, Runner: fileRunner{body}, Cwd: "/"}, machine.NewFS(root, "/", false), Policy{RedactArgv: keep})
		live := filepath.Join(root, "tmp", "rdhc_quick_abcdefgh.json")
		os.WriteFile(live, nil, 0o600)
		opt.Runner.Run(context.Background(), machine.Command{Argv: []string{"sudo", "rdhc", "--json", live}, OutFile: live})
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
		res := replayRunner{r: r, redact: keep}.Run(context.Background(), machine.Command{Argv: []string{"sudo", "rdhc", "--json", other}, OutFile: other})
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

func (f fileRunner) Run(_ context.Context, c machine.Command) machine.Result {
	if f.body == nil {
		os.Remove(c.OutFile)
	} else {
		os.WriteFile(c.OutFile, f.body, 0o600)
	}
	return machine.Result{}
}

// cutRunner answers as a command the end of the collection killed.
type cutRunner struct{}

func (cutRunner) Run(context.Context, machine.Command) machine.Result {
	return machine.Result{ExitCode: -9, Err: machine.ErrTimeout}
}

// TestReplayCut: where a collection was cut short, and which commands
// the cut killed, come back from the archive as recorded; a command that
// timed out by itself is not taken for one the cut killed.
func TestReplayCut(t *testing.T) {
	root := t.TempDir()
	rc := NewRecorder(false)
	keep := func(argv []string) []string { return argv }
	opt := rc.Attach(machine.Seams{Root: root, Runner: cutRunner{}, Cwd: "/"}, machine.NewFS(root, "/", false), Policy{RedactArgv: keep})
	opt.Runner.Run(context.Background(), machine.Command{Argv: []string{"slow", "--own-timeout"}})
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	opt.Runner.Run(ended, machine.Command{Argv: []string{"slow", "--cut"}})
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
	if res := run.Run(context.Background(), machine.Command{Argv: []string{"slow", "--own-timeout"}}); !res.TimedOut() || res.Cut {
		t.Errorf("own timeout replayed as %+v", res)
	}
	if res := run.Run(context.Background(), machine.Command{Argv: []string{"slow", "--cut"}}); !res.TimedOut() || !res.Cut {
		t.Errorf("killed by the cut replayed as %+v", res)
	}
	var none *Cut
	if _, ok := none.Probe("hip"); ok {
		t.Errorf("no cut, yet hip unfinished")
	}
}

// TestReplayRootID: the root's identity is recorded in the archive's
// settings and answered by the replay as captured; an archive without it
// says so; a malformed line is an error naming it.
func TestReplayRootID(t *testing.T) {
	keep := func(argv []string) []string { return argv }
	for _, want := range []machine.RootAnswer{
		{MountID: 2147483651, Source: "STATX_MNT_ID_UNIQUE", Device: "259:1", Inode: 2},
		{MountID: 23, Source: "STATX_MNT_ID", Reason: "STATX_MNT_ID_UNIQUE not answered (a kernel before 6.8); STATX_MNT_ID is reused", Device: "8:1", Inode: 131073},
		{Reason: "statx: EPERM (refused, e.g. by a seccomp policy)"},
		{},
	} {
		root := t.TempDir()
		rc := NewRecorder(false)
		opt := rc.Attach(machine.Seams{Root: root, Cwd: "/", RootID: func() machine.RootAnswer { return want }}, machine.NewFS(root, "/", false), Policy{RedactArgv: keep})
		opt.RootID()
		a, err := fakeroot.Parse(rc.Archive("test\n"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReplay(a, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		got := r.Seams(Policy{RedactArgv: keep}, nil).RootID()
		if want == (machine.RootAnswer{}) {
			want.Reason = "not in the capture (an archive of an older aorta-probe)"
		}
		if got != want {
			t.Errorf("replayed %+v, want %+v", got, want)
		}
	}
	for _, line := range []string{"root-mount-id: x STATX_MNT_ID_UNIQUE", "root-mount-id: 7", "root-inode: 8:1 x", "root-inode: 8:1"} {
		a, err := fakeroot.Parse([]byte("capture-root: /\n" + line + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewReplay(a, t.TempDir()); err == nil || !strings.Contains(err.Error(), strings.Split(line, ":")[0]) {
			t.Errorf("%q: error %v", line, err)
		}
	}
}
