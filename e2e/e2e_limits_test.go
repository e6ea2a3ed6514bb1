package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/testtree"
)

// TestE2EChildrenDieWithKilledProbe: SIGKILL runs no handler, so the probe
// cannot kill its tools' process groups; the parent-death signal set on
// every child (SIGKILL) makes the kernel do it. The fake hipconfig execs
// into a sleep, so the pid it wrote is the probe's direct child.
func TestE2EChildrenDieWithKilledProbe(t *testing.T) {
	bin := e2eBinary(t)
	tools := fakeTools(t, map[string]string{"hipconfig": "#!/bin/sh\necho $$ >> \"$E2E_PIDS\"\nexec sleep 1000\n"})
	pids, env := pidFile(t, baseEnv(t, tools))
	p := startProbe(t, bin, t.TempDir(), env, filepath.Join(t.TempDir(), "o.json"), "--no-python")
	waitForPids(t, pids, 1)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	checkNoSurvivors(t, pids)
}

// underLimits runs bin through prlimit with the given limits (prlimit
// option=value pairs), as cred when not nil, and returns its exit status,
// stdout and stderr.
func underLimits(t *testing.T, bin string, env []string, cred *syscall.Credential, limits []string, args ...string) (int, string, string) {
	t.Helper()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		skipOrFail(t, "prlimit (util-linux) not on PATH")
	}
	argv := append(append([]string{prlimit}, limits...), append([]string{bin}, args...)...)
	p := startProbeArgv(t, argv, env, cred)
	code := p.wait(t)
	return code, p.stdout.String(), p.stderr.String()
}

// startProbeArgv is startProbe for an arbitrary argv, optionally as
// another user.
func startProbeArgv(t *testing.T, argv, env []string, cred *syscall.Credential) *probeRun {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = os.TempDir(), env
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	return startCmd(t, cmd)
}

// shared is a new directory every user can enter and write, holding a
// copy of bin, for runs as another user.
func shared(t *testing.T, bin string) (dir, copy string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "aorta-limits-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	copy = filepath.Join(dir, "aorta-probe")
	if err := testtree.WriteFile(copy, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, copy
}

// TestE2ETightLimits: below the runtime's floor the binary says so in one
// line and exits 1, never 2 (a usage error) with a runtime stack dump;
// above it, under limits low enough to make it run serially, it writes the
// whole document, the fake tools' answers in it. docs/usage.md records the
// floors.
func TestE2ETightLimits(t *testing.T) {
	bin := e2eBinary(t)
	tools := fakeTools(t, map[string]string{"hipconfig": "#!/bin/sh\necho \"v$1\"\n"})
	env := baseEnv(t, tools)
	t.Run("RLIMIT_NOFILE 5: one line, exit 1", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "o.json")
		code, _, stderr := underLimits(t, bin, env, nil, []string{"--nofile=5"}, out, "--no-python")
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "RLIMIT_NOFILE 5") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("RLIMIT_NOFILE 32: serial, whole document", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "o.json")
		code, _, stderr := underLimits(t, bin, env, nil, []string{"--nofile=32"}, out, "--no-python")
		checkLimitedDocument(t, code, stderr, out)
	})
	t.Run("RLIMIT_AS 1 GiB: serial, whole document", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "o.json")
		code, _, stderr := underLimits(t, bin, env, nil, []string{"--as=" + strconv.Itoa(1<<30)}, out, "--no-python")
		checkLimitedDocument(t, code, stderr, out)
	})
	// RLIMIT_NPROC binds only users without CAP_SYS_RESOURCE and counts
	// every process of the user: run as nobody, which runs nothing else.
	t.Run("RLIMIT_NPROC as nobody", func(t *testing.T) {
		if os.Geteuid() != 0 {
			skipOrFail(t, "needs root to run the binary as nobody (RLIMIT_NPROC does not bind root, and counts this user's other processes)")
		}
		dir, copy := shared(t, bin)
		sharedTools := filepath.Join(dir, "bin")
		os.Mkdir(sharedTools, 0o755)
		testtree.WriteFile(filepath.Join(sharedTools, "hipconfig"), []byte("#!/bin/sh\necho \"v$1\"\n"), 0o755)
		nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
		env := []string{"PATH=" + sharedTools + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C"}
		// The runtime starts its threads before any code of the probe
		// runs: at 4 it always aborts first (exit 2, measured 10 of 10,
		// docs/usage.md), and no document is written.
		code, _, stderr := underLimits(t, copy, env, nobody, []string{"--nproc=4"}, filepath.Join(dir, "a.json"), "--no-python")
		if code != 2 || !strings.HasPrefix(stderr, "runtime: failed to create new OS thread") {
			t.Errorf("--nproc=4: exit %d, stderr %.300q", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "a.json")); err == nil {
			t.Errorf("--nproc=4 wrote a document")
		}
		out := filepath.Join(dir, "b.json")
		code, _, stderr = underLimits(t, copy, env, nobody, []string{"--nproc=24"}, out, "--no-python")
		checkLimitedDocument(t, code, stderr, out)
	})
}

func checkLimitedDocument(t *testing.T, code int, stderr, out string) {
	t.Helper()
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := checkDocument(t, string(b))
	if v, _ := field(m, "hip.version").(string); v != "v--version" {
		t.Errorf("hip.version %v: the fake hipconfig did not answer", field(m, "hip.version"))
	}
}
