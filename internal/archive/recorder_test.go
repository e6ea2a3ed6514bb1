package archive

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
)

// echoRunner answers every command with its argv joined on stdout.
type echoRunner struct{}

func (echoRunner) Run(_ context.Context, c machine.Command) machine.Result {
	return machine.Result{Stdout: []byte(strings.Join(c.Argv, " ") + "\n")}
}

// recordSmall records one collection of a small root: a file read, a
// file missing, a variable allowed and one withheld, uname and a command.
// It returns the root and the sealed archive.
func recordSmall(t *testing.T) (string, []byte) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/os-release"), []byte("ID=ubuntu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ROCM_PATH": "/opt/rocm", "SECRET_TOKEN": "must-never-appear"}
	rc := NewRecorder(false)
	m := machine.NewFS(root, "/", false)
	opt := rc.Attach(machine.Seams{
		Root: root, Cwd: "/", Path: []string{"/usr/bin"},
		Env:    func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Runner: echoRunner{},
		Uname: func() (machine.Uname, error) {
			return machine.Uname{Release: "6.8.0", Version: "#1 SMP", Machine: "x86_64"}, nil
		},
		TempName: func(int) string { return "abcdefgh" },
	}, m, Policy{
		EnvAllowed: func(k string) bool { return k == "ROCM_PATH" },
		RedactArgv: func(argv []string) []string { return argv },
	})
	if b, err := m.ReadFile("/etc/os-release", 1024); err != nil || string(b) != "ID=ubuntu\n" {
		t.Fatalf("live read: %q, %v", b, err)
	}
	if _, err := m.ReadFile("/etc/missing", 1024); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("live missing: %v", err)
	}
	opt.Env("ROCM_PATH")
	opt.Env("SECRET_TOKEN")
	opt.Uname()
	opt.TempName(0)
	opt.Runner.Run(context.Background(), machine.Command{Argv: []string{"rocminfo", "--support"}})
	return root, rc.Archive("test capture\n")
}

// TestRecorderReplays: what a Recorder met, a Replay answers on another
// machine: the file read and the one missing, the allowed variable's
// value and the withheld one's placeholder (its value never in the
// archive), uname, the command's output; a command never run is
// NotCapturedError.
func TestRecorderReplays(t *testing.T) {
	_, data := recordSmall(t)
	if strings.Contains(string(data), "must-never-appear") {
		t.Fatal("a withheld variable's value is in the archive")
	}
	a, err := ParseCapture(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay(a, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := r.Seams(Policy{RedactArgv: func(argv []string) []string { return argv }}, func(int) string { return "fallback" })
	m := machine.NewFS(s.Root, s.Cwd, false)
	m.SetFaults(r.Faults())
	b, err := m.ReadFile("/etc/os-release", 1024)
	_, missing := m.ReadFile("/etc/missing", 1024)
	rocm, _ := s.Env("ROCM_PATH")
	secret, _ := s.Env("SECRET_TOKEN")
	_, unset := s.Env("HOME")
	u, uerr := s.Uname()
	res := s.Runner.Run(context.Background(), machine.Command{Argv: []string{"rocminfo", "--support"}})
	got := strings.Join([]string{string(b), golden.OrNull(&err), golden.OrNull(&missing), rocm, secret, golden.OrNull(&unset),
		u.Release + "|" + u.Version + "|" + u.Machine, golden.OrNull(&uerr), string(res.Stdout), s.TempName(0), s.TempName(1)}, "\n")
	want := strings.Join([]string{"ID=ubuntu\n", "<nil>", "open /etc/missing: no such file or directory", "/opt/rocm", WithheldValue, "false",
		"6.8.0|#1 SMP|x86_64", "<nil>", "rocminfo --support\n", "abcdefgh", "fallback"}, "\n")
	if got != want {
		t.Errorf("replayed:\n%s", golden.LineDiff([]byte(want), []byte(got)))
	}
	var nc *NotCapturedError
	if res := s.Runner.Run(context.Background(), machine.Command{Argv: []string{"rocminfo"}}); !errors.As(res.Err, &nc) {
		t.Errorf("a command never run: %v", res.Err)
	}
}
