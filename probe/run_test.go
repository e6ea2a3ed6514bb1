package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sh(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

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
			if res.Err != ErrTimeout {
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
	if p, ok := which([]string{"/nonexistent", dir}, "hipconfig"); !ok || p != tool {
		t.Errorf("which = %q, %v", p, ok)
	}
	for _, n := range []string{"plain", "adir", "missing", ""} {
		if _, ok := which([]string{dir}, n); ok {
			t.Errorf("which(%q) found something", n)
		}
	}
	env := func(v string, set bool) func(string) (string, bool) {
		return func(string) (string, bool) { return v, set }
	}
	if got := searchPath(env("", false)); !bytes.Equal([]byte(filepath.Join(got...)), []byte("/bin/usr/bin")) {
		t.Errorf("unset PATH: %v", got)
	}
	if got := searchPath(env("", true)); len(got) != 0 {
		t.Errorf("empty PATH: %v", got)
	}
	if got := searchPath(env("bin:/usr/bin::./x:/opt/rocm/bin", true)); len(got) != 2 || got[1] != "/opt/rocm/bin" {
		t.Errorf("relative entries must be dropped: %v", got)
	}
}
