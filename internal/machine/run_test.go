package machine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/internal/testtree"
)

// sh writes script as an executable /bin/sh tool in a temp directory.
var sh = testtree.Script

func TestExecRunner(t *testing.T) {
	ctx := context.Background()
	r := ExecRunner{}
	t.Run("ok, separate streams, stdin is /dev/null", func(t *testing.T) {
		res := r.Run(ctx, Command{Path: sh(t, `echo out; echo err >&2; cat; echo "[$1]"`), Argv: []string{"hipconfig", "--version"}, Timeout: 5 * time.Second})
		if res.Err != nil || string(res.Stdout) != "out\n[--version]\n" || string(res.Stderr) != "err\n" {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("stdin fed", func(t *testing.T) {
		res := r.Run(ctx, Command{Path: sh(t, `cat`), Argv: []string{"c++filt"}, Stdin: []byte("_Z1fv\n"), Timeout: 5 * time.Second})
		if string(res.Stdout) != "_Z1fv\n" {
			t.Errorf("got %q", res.Stdout)
		}
	})
	t.Run("non-zero exit", func(t *testing.T) {
		res := r.Run(ctx, Command{Path: sh(t, `exit 3`), Argv: []string{"x"}, Timeout: 5 * time.Second})
		var ee *ExitError
		if !errors.As(res.Err, &ee) || ee.Code != 3 || res.ExitCode != 3 {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("killed by a signal reports -signal", func(t *testing.T) {
		res := r.Run(ctx, Command{Path: sh(t, `kill -SEGV $$`), Argv: []string{"x"}, Timeout: 5 * time.Second})
		if res.ExitCode != -11 {
			t.Errorf("exit %d, want -11 (%v)", res.ExitCode, res.Err)
		}
	})
	t.Run("timeout kills the whole group", func(t *testing.T) {
		// The tool starts a grandchild, waits until it has written its pid,
		// and sleeps. A timeout that fires before the pid is written proves
		// nothing, so it is doubled until the grandchild was there to kill;
		// then the grandchild must die (polled, bounded).
		pidFile := filepath.Join(t.TempDir(), "grandchild")
		tool := sh(t, `sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 60' "$1" &
while [ ! -e "$1" ]; do sleep 0.01; done
exec sleep 60`)
		for timeout := 100 * time.Millisecond; ; timeout *= 2 {
			os.Remove(pidFile)
			res := r.Run(ctx, Command{Path: tool, Argv: []string{"x", pidFile}, Timeout: timeout})
			if !res.TimedOut() {
				t.Fatalf("got %+v", res)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				if timeout > time.Minute {
					t.Fatalf("the grandchild never wrote its pid: %v", err)
				}
				continue
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file: %q", b)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			for limit := time.Now().Add(10 * time.Second); processAlive(pid) && time.Now().Before(limit); {
				time.Sleep(5 * time.Millisecond)
			}
			if processAlive(pid) {
				t.Error("a grandchild outlived the timeout kill")
			}
			return
		}
	})
	t.Run("a grandchild holding the pipes does not hold the probe", func(t *testing.T) {
		res := r.Run(ctx, Command{Path: sh(t, `echo hi; sleep 60 &`), Argv: []string{"x"}, Timeout: 30 * time.Second})
		if res.Err != nil || string(res.Stdout) != "hi\n" {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("output capped, child drained", func(t *testing.T) {
		res := r.Run(ctx, Command{Path: sh(t, `head -c 5000000 /dev/zero; echo done >&2`), Argv: []string{"x"}, MaxOutput: 1000, Timeout: 30 * time.Second})
		if res.Err != nil || len(res.Stdout) != 1000 || !res.Truncated || string(res.Stderr) != "done\n" {
			t.Errorf("stdout %d bytes, truncated %v, stderr %q, err %v", len(res.Stdout), res.Truncated, res.Stderr, res.Err)
		}
	})
	t.Run("relative path refused", func(t *testing.T) {
		if res := r.Run(ctx, Command{Path: "tool", Argv: []string{"tool"}}); res.Err == nil {
			t.Error("relative executable accepted")
		}
	})
	t.Run("start failure", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "noexec")
		os.WriteFile(p, []byte("\x00\x01"), 0o755)
		if res := r.Run(ctx, Command{Path: p, Argv: []string{"noexec"}}); res.Err == nil || res.ExitCode != -1 {
			t.Errorf("got %+v", res)
		}
	})
}

// processAlive reports whether pid is a live process; a zombie is dead (it
// only waits for its new parent to reap it).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, ok := bytes.Cut(b, []byte(") "))
	return ok && len(after) > 0 && after[0] != 'Z'
}

func TestWhichAndSearchPath(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "hipconfig")
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "plain"), []byte(""), 0o644)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	if p, ok := Which([]string{"/nonexistent", dir}, "hipconfig"); !ok || p != tool {
		t.Errorf("which = %q, %v", p, ok)
	}
	for _, n := range []string{"plain", "adir", "missing", ""} {
		if _, ok := Which([]string{dir}, n); ok {
			t.Errorf("Which(%q) found something", n)
		}
	}
	env := func(v string, set bool) func(string) (string, bool) {
		return func(string) (string, bool) { return v, set }
	}
	if got := SearchPath(env("", false)); !bytes.Equal([]byte(filepath.Join(got...)), []byte("/bin/usr/bin")) {
		t.Errorf("unset PATH: %v", got)
	}
	if got := SearchPath(env("", true)); len(got) != 0 {
		t.Errorf("empty PATH: %v", got)
	}
	if got := SearchPath(env("bin:/usr/bin::./x:/opt/rocm/bin", true)); len(got) != 2 || got[1] != "/opt/rocm/bin" {
		t.Errorf("relative entries must be dropped: %v", got)
	}
}

// TestChildPATH: a child's PATH keeps only the absolute entries, in order,
// whatever the probe's own PATH and the command's extra variables hold;
// an unset PATH stays unset, a PATH with no absolute entry is set but empty.
func TestChildPATH(t *testing.T) {
	for _, tc := range []struct {
		base, extra []string
		want        string // "" means no PATH entry at all
	}{
		{[]string{"A=1", "PATH=bin:.::/usr/bin:rel:/bin", "B=2"}, nil, "PATH=/usr/bin:/bin"},
		{[]string{"PATH=.:x"}, nil, "PATH="},
		{[]string{"A=1"}, nil, ""},
		{[]string{"PATH=/usr/bin"}, []string{"PATH=.:/opt/bin"}, "PATH=/opt/bin"},
	} {
		var got []string
		for _, kv := range childEnv(tc.base, tc.extra) {
			if strings.HasPrefix(kv, "PATH=") {
				got = append(got, kv)
			}
		}
		if tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) == 0 || got[len(got)-1] != tc.want) {
			t.Errorf("childEnv(%q, %q) PATH = %q, want %q", tc.base, tc.extra, got, tc.want)
		}
	}
	// Through the real runner: the child sees the cleaned PATH.
	t.Setenv("PATH", "bin:.::/usr/bin:rel:/bin")
	r := ExecRunner{}.Run(context.Background(), Command{Path: "/usr/bin/env", Argv: []string{"env"}, Timeout: ShortTimeout})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if !strings.Contains("\n"+string(r.Stdout), "\nPATH=/usr/bin:/bin\n") {
		t.Errorf("the child's environment: %q", r.Stdout)
	}
}

// TestCappedMemory: the capture never holds more than its cap, whatever is
// written, and a stream consumed as it is read (StdoutTo) is not held.
func TestCappedMemory(t *testing.T) {
	w := &capped{max: 1000}
	chunk := make([]byte, 64<<10)
	for i := 0; i < 160; i++ { // 10 MiB
		w.Write(chunk)
	}
	if len(w.buf) != 1000 || cap(w.buf) > 1000 || !w.cut || w.n != 160*64<<10 {
		t.Errorf("len %d cap %d cut %v n %d", len(w.buf), cap(w.buf), w.cut, w.n)
	}
	res := ExecRunner{}.Run(context.Background(), Command{
		Path: sh(t, `head -c 3000000 /dev/zero; head -c 300000 /dev/zero >&2`), Argv: []string{"x"},
		StdoutTo: io.Discard, MaxStderr: 100, Timeout: 30 * time.Second})
	if res.Err != nil || res.Stdout != nil || res.StdoutN != 3000000 || len(res.Stderr) != 100 || !res.StderrCut || res.StdoutCut {
		t.Errorf("stdout %d (n %d, cut %v), stderr %d (cut %v), err %v", len(res.Stdout), res.StdoutN, res.StdoutCut, len(res.Stderr), res.StderrCut, res.Err)
	}
}

// TestNoLockedThreads guards what makes Pdeathsig safe (ExecRunner): the
// kernel sends a child's parent-death signal when the OS thread that forked
// it exits, and the Go runtime ends a thread only when a goroutine exits
// while locked to it. No code of this module may lock a thread.
func TestNoLockedThreads(t *testing.T) {
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "starlarktest" || strings.HasPrefix(d.Name(), ".")) && p != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if strings.Contains(code, "LockOSThread(") {
				t.Errorf("%s:%d locks an OS thread: a child started on it would get its parent-death signal when it exits", p, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestResultModel pins the one way of asking what a command did: timed out,
// exited (with which status), or never launched.
func TestResultModel(t *testing.T) {
	launch := &fs.PathError{Op: "exec", Path: "x", Err: syscall.ENOENT}
	for _, tc := range []struct {
		name     string
		r        Result
		timedOut bool
		code     int
		exited   bool
		launch   error
	}{
		{"success", Result{}, false, 0, true, nil},
		{"non-zero", Result{ExitCode: 3, Err: &ExitError{3}}, false, 3, true, nil},
		{"signal", Result{ExitCode: -11, Err: &ExitError{-11}}, false, -11, true, nil},
		{"timeout", Result{ExitCode: -9, Err: ErrTimeout}, true, 0, false, nil},
		{"not found", Result{ExitCode: -1, Err: launch}, false, 0, false, launch},
	} {
		code, exited := tc.r.Exit()
		if tc.r.TimedOut() != tc.timedOut || code != tc.code || exited != tc.exited || tc.r.LaunchErr() != tc.launch {
			t.Errorf("%s: TimedOut %v Exit (%d, %v) LaunchErr %v", tc.name, tc.r.TimedOut(), code, exited, tc.r.LaunchErr())
		}
	}
}
