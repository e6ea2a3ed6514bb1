package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// The end-to-end tests run the real static binary (buildStaticProbe, as
// TestSandboxes) as a child process, with fake tools on PATH, and check the
// product's promises: atomic output, the deadline and SIGTERM, a hostile
// environment, no secrets in the document. Every wait has a generous upper
// bound that only guards against a hang; nothing asserts a duration.

// hangGuard bounds every run of the binary; a run that needs it has hung.
const hangGuard = 20 * time.Second

// e2eBinary is the static binary, built once per test process.
func e2eBinary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the end-to-end tests need Linux, this is " + runtime.GOOS)
	}
	if testing.Short() {
		t.Skip("the end-to-end tests build the binary; not run with -short")
	}
	return buildStaticProbe(t)
}

// fakeTools writes executable scripts into a new directory and returns it.
// The fakes append the pid of each of their processes to the file named by
// $E2E_PIDS (one line each; the probe passes its environment on), so the
// test can tell which survived.
func fakeTools(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := testtree.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A tool that never exits: it ignores SIGTERM, forks a grandchild that
// keeps the probe's stdout pipe open, and waits for it.
const stubborn = `#!/bin/sh
trap '' TERM
echo $$ >> "$E2E_PIDS"
sleep 1000 &
echo $! >> "$E2E_PIDS"
wait
wait
`

// probeRun is one started binary.
type probeRun struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	err            error
}

// startProbe starts bin with exactly env (nothing inherited) in dir.
func startProbe(t *testing.T, bin, dir string, env []string, args ...string) *probeRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	return startCmd(t, cmd)
}

// startCmd starts cmd as set up by the caller; a nil Stdout or Stderr is
// captured in the run's buffers. The process is killed, if still running,
// when the test ends.
func startCmd(t *testing.T, cmd *exec.Cmd) *probeRun {
	t.Helper()
	p := &probeRun{cmd: cmd, done: make(chan struct{})}
	if cmd.Stdout == nil {
		cmd.Stdout = &p.stdout
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &p.stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

// runCmd runs cmd (as startCmd) to completion and returns its exit
// status, stdout and stderr.
func runCmd(t *testing.T, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	p := startCmd(t, cmd)
	code = p.wait(t)
	return code, p.stdout.String(), p.stderr.String()
}

// wait waits (at most hangGuard) and returns the exit status.
func (p *probeRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(hangGuard):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("the binary had not exited after %v; stderr: %s", hangGuard, p.stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", p.err)
	return -1
}

// runProbe runs bin to completion.
func runProbe(t *testing.T, bin, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	return runCmd(t, cmd)
}

// baseEnv is a small, fixed environment whose PATH starts with dirs, then
// the hermetic system bin (no real ROCm or hardware tool: hermetic_test.go).
func baseEnv(t *testing.T, dirs ...string) []string {
	return []string{
		"PATH=" + strings.Join(append(dirs, hermeticBin(t)), ":"),
		"HOME=" + t.TempDir(),
		"LC_ALL=C",
	}
}

// signalMidRun sends sig to p once the fake tools have written n pids to
// the pid file, and returns the whole document p then wrote to out; an
// exit status other than 0 is fatal.
func signalMidRun(t *testing.T, p *probeRun, pids string, n int, sig syscall.Signal, out string) pyjson.Map[any] {
	t.Helper()
	waitForPids(t, pids, n)
	start := time.Now()
	p.cmd.Process.Signal(sig)
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d after %v; stderr %q", code, sig, p.stderr.String())
	}
	t.Logf("exited %v after %v", time.Since(start), sig)
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return checkDocument(t, string(doc))
}

// checkDocument decodes a whole document: the 40 keys of schema 1.16 in
// order, then probe_provenance.
func checkDocument(t *testing.T, doc string) pyjson.Map[any] {
	t.Helper()
	v, err := pyjson.Decode(doc)
	if err != nil {
		t.Fatalf("the document does not decode: %v\n%.400s", err, doc)
	}
	m, ok := v.(pyjson.Map[any])
	if !ok {
		t.Fatalf("the document is a %T", v)
	}
	keys := m.Keys()
	if len(keys) != 41 || keys[0] != "schema_version" || keys[9] != "therock" || keys[40] != "probe_provenance" {
		t.Fatalf("keys (%d): %v", len(keys), keys)
	}
	if sv, _ := m.Get("schema_version"); sv != "1.16" {
		t.Errorf("schema_version %v", sv)
	}
	return m
}

// field walks a dotted path through a decoded document.
func field(m pyjson.Map[any], path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := v.(pyjson.Map[any])
		if !ok {
			return nil
		}
		v, _ = mm.Get(k)
	}
	return v
}

func reasonsOf(m pyjson.Map[any]) []string {
	var out []string
	list, _ := field(m, "partial_reasons").([]any)
	for _, r := range list {
		s, _ := r.(string)
		out = append(out, s)
	}
	return out
}

// readPids reads the pid file the fakes append to.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %s: %q", path, b)
		}
		pids = append(pids, n)
	}
	return pids
}

// alive reports whether pid is a live process (a zombie is dead: it only
// waits for its new parent to reap it).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, ok := bytes.Cut(b, []byte(") "))
	return !ok || len(after) == 0 || after[0] != 'Z'
}

// pidFile is a new pid file for the fakes of one run, with env naming it.
// At cleanup, whatever the fakes left (a SIGKILLed probe cannot clean up
// after itself: its tools are in their own process groups) is SIGKILLed,
// by pid and process group.
func pidFile(t *testing.T, env []string) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pids")
	t.Cleanup(func() {
		for _, pid := range readPids(t, path) {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return path, append(env[:len(env):len(env)], "E2E_PIDS="+path)
}

// checkNoSurvivors fails for every fake process still alive. The kill of a
// group is delivered at once but death and re-parenting take a moment, so
// it polls (bounded).
func checkNoSurvivors(t *testing.T, pidFile string) {
	t.Helper()
	pids := readPids(t, pidFile)
	if len(pids) == 0 {
		t.Fatalf("the fake tools never ran (no pid in %s)", pidFile)
	}
	limit := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(limit) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			t.Errorf("process %d (%s) outlived the probe", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}

// waitForPids waits (bounded) until the fakes have written n pids: the
// probe is then certainly mid-run.
func waitForPids(t *testing.T, path string, n int) {
	t.Helper()
	limit := time.Now().Add(hangGuard)
	for len(readPids(t, path)) < n {
		if time.Now().After(limit) {
			t.Fatalf("the fake tools did not start within %v", hangGuard)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestE2EAtomicOutput: SIGKILL mid-run leaves OUT absent or its previous
// whole content, never a partial file and no stray file named OUT; SIGTERM
// mid-run still writes a whole document at once.
func TestE2EAtomicOutput(t *testing.T) {
	bin := e2eBinary(t)
	// A hanging python3 holds the probe mid-run (root discovery waits for
	// it). hipconfig hangs as well for SIGTERM; not for the complete first
	// run of the SIGKILL case (hip runs it five times, 5 s each).
	baseSigkill := baseEnv(t, fakeTools(t, map[string]string{"python3": stubborn}))

	t.Run("sigkill", func(t *testing.T) {
		outDir := t.TempDir()
		out := filepath.Join(outDir, "env.json")
		// A first, complete document (no Python: the fake would hang).
		if code, _, errs := runProbe(t, bin, outDir, baseSigkill, out, "--no-python"); code != 0 {
			t.Fatalf("first run: exit %d: %s", code, errs)
		}
		before, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		checkDocument(t, string(before))

		for _, existing := range []bool{true, false} {
			if !existing {
				os.Remove(out)
			}
			pids, env := pidFile(t, baseSigkill)
			p := startProbe(t, bin, outDir, env, out)
			waitForPids(t, pids, 2) // the fake python3 is running
			p.cmd.Process.Signal(syscall.SIGKILL)
			if code := p.wait(t); code != -1 {
				t.Errorf("exit %d after SIGKILL", code)
			}
			after, err := os.ReadFile(out)
			switch {
			case existing && err != nil:
				t.Errorf("OUT vanished: %v", err)
			case existing && !bytes.Equal(after, before):
				t.Errorf("OUT changed under SIGKILL: %d bytes, was %d", len(after), len(before))
			case !existing && err == nil:
				t.Errorf("OUT appeared under SIGKILL (%d bytes)", len(after))
			}
			entries, _ := os.ReadDir(outDir)
			for _, e := range entries {
				if e.Name() != "env.json" {
					t.Errorf("stray file in OUT's directory: %s", e.Name())
				}
			}
		}
	})

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			pids, env := pidFile(t, baseEnv(t, fakeTools(t, map[string]string{"python3": stubborn, "hipconfig": stubborn})))
			outDir := t.TempDir()
			out := filepath.Join(outDir, "env.json")
			p := startProbe(t, bin, outDir, env, out)
			// Both fakes (and their grandchildren) are running. The
			// default deadline is 60 s; hangGuard (20 s) is well under it.
			m := signalMidRun(t, p, pids, 4, sig, out)
			if field(m, "probe_provenance.deadline_hit") != true {
				t.Error("deadline_hit is not true after the signal")
			}
			if field(m, "partial") != true {
				t.Error("partial is not true after the signal")
			}
			interrupted := 0
			for _, r := range reasonsOf(m) {
				if strings.HasSuffix(r, ": not captured (collection interrupted)") {
					interrupted++
				}
				if strings.Contains(r, "deadline of") {
					t.Errorf("a deadline reason after the signal: %q", r)
				}
			}
			if interrupted == 0 {
				t.Errorf("no '… not captured (collection interrupted)' reason in %q", reasonsOf(m))
			}
			entries, _ := os.ReadDir(outDir)
			if len(entries) != 1 {
				t.Errorf("OUT's directory holds %d entries, want only env.json", len(entries))
			}
			checkNoSurvivors(t, pids)
		})
	}
}

// TestE2EDeadline: tools that never exit, one ignoring SIGTERM with a
// grandchild holding stdout, under --deadline 2s: the binary exits soon
// after the deadline with a whole document, and none of them survives.
func TestE2EDeadline(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	forever := "#!/bin/sh\necho $$ >> \"$E2E_PIDS\"\nexec sleep 1000\n"
	tools := fakeTools(t, map[string]string{
		"python3":               forever,
		"hipconfig":             stubborn,
		"rocm_agent_enumerator": stubborn,
	})
	outDir := t.TempDir()
	out := filepath.Join(outDir, "env.json")
	pids, env := pidFile(t, baseEnv(t, tools))
	start := time.Now()
	code, stdout, stderr := runProbe(t, bin, outDir, env, out, "--deadline", "2s")
	t.Logf("exited after %v with --deadline 2s", time.Since(start))
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := checkDocument(t, string(doc))
	if field(m, "probe_provenance.deadline_hit") != true {
		t.Error("deadline_hit is not true")
	}
	if ms, _ := field(m, "probe_provenance.deadline_ms").(pyjson.Number); ms != "2000" {
		t.Errorf("deadline_ms %v", ms)
	}
	found := false
	for _, r := range reasonsOf(m) {
		if strings.HasSuffix(r, ": not captured (deadline of 2s exceeded)") {
			found = true
		}
	}
	if !found {
		t.Errorf("no '… not captured (deadline of 2s exceeded)' reason in %q", reasonsOf(m))
	}
	// The commands killed at the deadline are in probe_provenance, though
	// their probes were abandoned.
	killed := map[string]bool{}
	cmds, _ := field(m, "probe_provenance.commands").([]any)
	for _, c := range cmds {
		c := c.(pyjson.Map[any])
		argv, _ := c.Get("argv")
		timedOut, _ := c.Get("timed_out")
		if a, ok := argv.([]any); ok && len(a) > 0 && timedOut == true {
			killed[filepath.Base(fmt.Sprint(a[0]))] = true
		}
	}
	for _, name := range []string{"hipconfig", "rocm_agent_enumerator"} {
		if !killed[name] {
			t.Errorf("no timed-out %s in probe_provenance.commands: %v", name, cmds)
		}
	}
	checkNoSurvivors(t, pids)
}

// loud is a tool that must never run: it leaves a marker and fails.
const loud = `#!/bin/sh
echo "$0 $*" >> "$E2E_MARKER"
echo "this tool must not run: $0" >&2
exit 99
`

// TestE2EHostileEnvironment: relative PATH entries (ignored: a tool there
// never runs), directories named like tools (skipped), a python3 that
// prints megabytes before the helper's JSON, non-UTF-8 bytes and U+2028 in
// knob values and a non-UTF-8 variable name; the document goes to stdout
// with one trailing newline and is pure ASCII, as json.dumps writes it.
func TestE2EHostileEnvironment(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	realPython := "/usr/bin/python3"
	if _, err := os.Stat(realPython); err != nil {
		t.Skip("no " + realPython + " to wrap")
	}
	want, err := exec.Command(realPython, "-c", "import platform; print(platform.python_version())").Output()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	for _, p := range []string{"bin/python3", "bin/hipconfig", "python3", "hipconfig", "rel/python3", "rel/aorta-e2e-child", "aorta-e2e-child"} {
		os.MkdirAll(filepath.Join(work, filepath.Dir(p)), 0o755)
		if err := testtree.WriteFile(filepath.Join(work, p), []byte(loud), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := testtree.WriteFile(marker+".file", nil, 0o755); err != nil {
		t.Fatal(err)
	}
	dirs := t.TempDir() // holds directories named python3 and hipconfig
	for _, d := range []string{"python3", "hipconfig"} {
		if err := os.Mkdir(filepath.Join(dirs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// 6 MB of noise (more than the 4 MiB default command cap) ending
	// without a newline, then the real interpreter: as a sitecustomize
	// that prints would.
	noisy := fakeTools(t, map[string]string{"python3": `#!/bin/sh
head -c 6000000 /dev/zero | tr '\0' 'x'
exec ` + realPython + ` "$@"
`})
	// A tool that starts a program by name, as the real
	// rocm_agent_enumerator starts python3 through env: its child must not
	// find one on a relative PATH entry either.
	child := fakeTools(t, map[string]string{"rocm_agent_enumerator": "#!/bin/sh\nexec aorta-e2e-child\n"})
	env := []string{
		// Relative entries (and the empty one, the cwd for a shell), a
		// regular file, a missing directory, directories named like tools.
		"PATH=bin:.::rel:" + marker + ".file:/nonexistent/dir:" + dirs + ":" + noisy + ":" + child + ":" + hermeticBin(t),
		"HOME=" + t.TempDir(),
		"E2E_MARKER=" + marker,
		"HIP_VISIBLE_DEVICES=a\xffb",
		"NCCL_SOCKET_IFNAME=x\u2028y",
		"\xffODD\xfe=value\xfd",
	}
	code, stdout, stderr := runProbe(t, bin, work, env, "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.HasSuffix(stdout, "}\n") || strings.HasSuffix(stdout, "\n\n") {
		t.Errorf("stdout must end with exactly one newline: %q", stdout[max(0, len(stdout)-10):])
	}
	for i := 0; i < len(stdout); i++ {
		if stdout[i] >= 0x80 {
			t.Fatalf("non-ASCII byte %#x at %d: %q", stdout[i], i, stdout[max(0, i-40):min(len(stdout), i+10)])
		}
	}
	for _, s := range []string{`"HIP_VISIBLE_DEVICES": "a\udcffb"`, `"NCCL_SOCKET_IFNAME": "x\u2028y"`} {
		if !strings.Contains(stdout, s) {
			t.Errorf("env_vars lacks %s", s)
		}
	}
	if strings.Contains(stdout, "ODD") {
		t.Error("a variable that is not a knob reached the document")
	}
	m := checkDocument(t, stdout)
	if got := field(m, "python_version"); got != strings.TrimSpace(string(want)) {
		t.Errorf("python_version %v, want %s; reasons %q", got, want, reasonsOf(m))
	}
	reasons := reasonsOf(m)
	found := false
	for _, r := range reasons {
		found = found || r == "hip: hipconfig not on PATH; all hip.* fields = null"
		if strings.Contains(r, "python_version") || strings.Contains(r, "interpreter") {
			t.Errorf("python reason with a working interpreter: %q", r)
		}
	}
	if !found {
		t.Errorf("a directory named hipconfig was taken for the tool: %q", reasons)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a tool on a relative PATH entry ran: %s", b)
	}
	cmds, _ := field(m, "probe_provenance.commands").([]any)
	ran := false
	for _, c := range cmds {
		c := c.(pyjson.Map[any])
		if argv, _ := c.Get("argv"); fmt.Sprint(argv) == "[python3 -]" {
			n, _ := c.Get("stdout_bytes")
			ran = true
			if v, _ := strconv.Atoi(string(n.(pyjson.Number))); v < 6000000 {
				t.Errorf("the noisy python3 did not run: stdout_bytes %v", n)
			}
		}
	}
	if !ran {
		t.Errorf("no python3 command in probe_provenance: %v", cmds)
	}
}

// TestE2EWriteFailures: OUT that cannot be written is exit 1 with one
// stderr line in Python's OSError words, and nothing is left behind.
func TestE2EWriteFailures(t *testing.T) {
	bin := e2eBinary(t)
	empty := t.TempDir()
	args := func(out string) []string { return []string{out, "--no-python", "--root", empty} }
	env := baseEnv(t)
	check := func(t *testing.T, code int, stdout, stderr, want string) {
		t.Helper()
		if code != 1 || stdout != "" || stderr != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
		}
	}

	t.Run("under a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o644)
		out := file + "/env.json"
		code, stdout, stderr := runProbe(t, bin, empty, env, args(out)...)
		check(t, code, stdout, stderr, "aorta-probe: failed to write "+out+": [Errno 20] Not a directory: '"+out+"'\n")
	})

	t.Run("permission denied", func(t *testing.T) {
		// Root writes anywhere: run the binary as nobody then, from a
		// directory nobody can read, into one it cannot write.
		base := t.TempDir()
		ro := filepath.Join(base, "ro")
		os.Mkdir(ro, 0o555)
		cmdBin, cred := bin, (*syscall.Credential)(nil)
		if os.Geteuid() == 0 {
			for _, d := range []string{filepath.Dir(base), base} {
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmdBin = filepath.Join(base, "aorta-probe")
			b, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			testtree.WriteFile(cmdBin, b, 0o755)
			cred = &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}
		}
		out := filepath.Join(ro, "env.json")
		cmd := exec.Command(cmdBin, args(out)...)
		cmd.Dir, cmd.Env = base, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		code, stdout, stderr := runCmd(t, cmd)
		check(t, code, stdout, stderr, "aorta-probe: failed to write "+out+": [Errno 13] Permission denied: '"+out+"'\n")
		if entries, _ := os.ReadDir(ro); len(entries) != 0 {
			t.Errorf("left in the directory: %v", entries)
		}
	})

	t.Run("a directory", func(t *testing.T) {
		parent := t.TempDir()
		out := filepath.Join(parent, "d")
		os.Mkdir(out, 0o755)
		code, stdout, stderr := runProbe(t, bin, empty, env, args(out)...)
		check(t, code, stdout, stderr, "aorta-probe: failed to write "+out+": [Errno 21] Is a directory: '"+out+"'\n")
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("left beside it: %v", entries)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("left inside it: %v", entries)
		}
	})

	t.Run("stdout", func(t *testing.T) {
		for _, a := range [][]string{{"-"}, nil} {
			code, stdout, stderr := runProbe(t, bin, empty, env, append(a, "--no-python", "--root", empty)...)
			if code != 0 || stderr != "" || !strings.HasSuffix(stdout, "}\n") || strings.HasSuffix(stdout, "\n\n") {
				t.Errorf("%q: exit %d, stderr %q, tail %q", a, code, stderr, stdout[max(0, len(stdout)-5):])
			}
			checkDocument(t, stdout)
		}
	})
}

// TestE2ENoSecrets: the document (probe_provenance included) and stderr
// never hold the value of a variable that is not one of the knobs, nor a
// --buck-option config value, on success and when buck2 fails echoing
// the override back on stderr. (A fixed, documented set of other variables
// is recorded on purpose: the Buck2 placement markers and TMPDIR in
// probe_provenance.placement, AORTA_DOCKER_IMAGE, VIRTUAL_ENV, …; they are
// not set here.)
func TestE2ENoSecrets(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	fake := fakeBuck2(t)
	secrets := map[string]string{
		"AORTA_E2E_SECRET":      "s3cr3t-env-6f1d2a",
		"GITHUB_TOKEN":          "ghp_e2etoken9b7c4e",
		"AWS_SECRET_ACCESS_KEY": "aws-e2e-5a8d3f",
		"buck config":           "cfg-e2e-value-71c0",
		// Names next to knobs: a prefix or case-insensitive match would
		// record them.
		"HIP_VISIBLE_DEVICES_EXTRA": "knob-prefix-e2e-1",
		"hip_visible_devices":       "knob-case-e2e-2",
		"XNCCL_IB_HCA":              "knob-suffix-e2e-3",
		"NCCL_":                     "knob-stem-e2e-4",
	}
	// Hermetic, and nothing in it scales with the machine: the tools come
	// from the fake buck2 and the hermetic bin (hermetic_test.go), ROCm
	// from an empty root ($ROCM_PATH: no /opt/rocm/bin tool is run), and
	// the workload interpreter is python3 -S, which imports nothing of the
	// machine's site-packages (a torch there took seconds per run and
	// this test past its hang guard under go test ./...), yet runs the
	// real helper with the secrets in its environment.
	rocm := t.TempDir()
	testtree.Make(t, rocm, "lib/")
	python := testtree.Script(t, `exec python3 -S "$@"`)
	env := append(baseEnv(t, fake), "ROCM_PATH="+rocm)
	for k, v := range secrets {
		if k != "buck config" {
			env = append(env, k+"="+v)
		}
	}
	for _, tc := range []struct {
		name  string
		hooks map[string]string
	}{
		{"success", nil},
		{"buck2 fails echoing the override", map[string]string{
			"deps.rc":     "2",
			"deps.stderr": "Error: invalid value in -c build.token=" + secrets["buck config"] + " (" + secrets["buck config"] + " is not a profile)\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			project := fakeBuckProject(t, tc.hooks)
			// The cquery's timeout is the hang guard's: a loaded machine
			// that slows the fake buck2 down must not time it out.
			code, stdout, stderr := runProbe(t, bin, project, env, "-", "--extended", "--python", python,
				"--buck-target", "//app:trainer", "--buck-option", "mode=root//mode/debug",
				"--buck-option", "config=build.token="+secrets["buck config"], "--buck-timeout", strconv.Itoa(int(hangGuard/time.Second)))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			m := checkDocument(t, stdout)
			for name, v := range secrets {
				if strings.Contains(stdout, v) || strings.Contains(stderr, v) {
					i := strings.Index(stdout, v)
					t.Errorf("the value of %s is in the output: …%s…", name, stdout[max(0, i-80):min(len(stdout), i+40)])
				}
			}
			if !strings.Contains(stdout, "build.token=<redacted>") {
				t.Errorf("no redacted override in the document (did the cquery run?); reasons %q", reasonsOf(m))
			}
			if field(m, "build_system.kind") != "buck2" {
				t.Errorf("build_system.kind %v", field(m, "build_system.kind"))
			}
			// The helper ran, the secrets in its environment.
			if _, err := os.Stat(filepath.Join(hermeticBin(t), "python3")); err == nil && field(m, "python_version") == "" {
				t.Errorf("the Python helper did not run; reasons %q", reasonsOf(m))
			}
			if field(m, "rocm.root") != rocm {
				t.Errorf("rocm.root %v, want the empty root %s", field(m, "rocm.root"), rocm)
			}
		})
	}
}

// TestE2EEchoedSecretForms: the real binary with a fake buck2 that echoes
// each -c KEY=VALUE it receives on stderr (testdata/fakebuck2, deps.echo),
// for values holding CRLF, CR, LF, tabs and bytes that are not UTF-8: no
// part of any value is in the document, decoded or raw, nor on stderr.
func TestE2EEchoedSecretForms(t *testing.T) {
	bin := e2eBinary(t)
	fake := fakeBuck2(t)
	values := map[string]string{
		"sec.crlf": "Ab1q7Zk\r\nZq8w3Lp",
		"sec.cr":   "Cr2x9Vb\rCr3y4Nm",
		"sec.lf":   "Lf5t2Gh\nLf6u1Jk",
		"sec.tab":  "\tTb7r3Qw\tTb8s2Er\t",
		"sec.bin":  "Nu9p4Ds\xff\xfeNu0o5Fa",
		"sec.edge": "Ed1i6Gs Ed2h7Hd\r\n",
	}
	project := fakeBuckProject(t, map[string]string{"deps.rc": "2", "deps.echo": ""})
	args := []string{"-", "--no-python", "--buck-target", "//app:trainer"}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--buck-option", "config="+k+"="+values[k])
	}
	code, stdout, stderr := runProbe(t, bin, project, baseEnv(t, fake), args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := checkDocument(t, stdout)
	reasons := strings.Join(reasonsOf(m), "\n")
	if !strings.Contains(reasons, "rejected value: <redacted>") {
		t.Fatalf("no echoed value redacted (did the fake echo?); reasons:\n%s", reasons)
	}
	for _, k := range keys {
		v := values[k]
		for _, part := range regexp.MustCompile(`[A-Za-z0-9]{7}`).FindAllString(v, -1) {
			for where, text := range map[string]string{"document": stdout, "decoded reasons": reasons, "stderr": stderr} {
				if strings.Contains(text, part) {
					i := strings.Index(text, part)
					t.Errorf("%s: %q of %s is in the %s: …%s…", k, part, k, where, text[max(0, i-80):min(len(text), i+40)])
				}
			}
		}
	}
}

// TestE2EInterpreterIsTheProbe: AORTA_PROBE_PYTHON naming the probe
// binary itself (or a symbolic link to it) is refused without running it;
// a copy (another inode) is run once, finds the helper-run marker, runs no
// interpreter itself and prints its document, which the first probe names.
// Nothing loops: the run ends at once with a document.
func TestE2EInterpreterIsTheProbe(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "python-link")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "python-copy")
	if err := testtree.WriteFile(cp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, python, want string }{
		{"itself", bin, "python_version: interpreter " + bin + " not run: it is this aorta-probe binary, which would run itself"},
		{"symlink", link, "python_version: interpreter " + link + " not run: it is this aorta-probe binary, which would run itself"},
		{"copy", cp, "python_version: interpreter " + cp + " printed no complete helper document (an aorta-probe document: the interpreter runs a copy of this probe, which ran no interpreter itself)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runProbe(t, bin, dir, append(baseEnv(t), "AORTA_PROBE_PYTHON="+tc.python), "-")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got []string
			for _, r := range reasonsOf(checkDocument(t, stdout)) {
				if strings.HasPrefix(r, "python_version:") {
					got = append(got, r)
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("python_version reasons %q, want %q", got, tc.want)
			}
		})
	}
}

// TestE2EOutputNodes: OUT that is not a plain path to a regular file. A
// FIFO and a link to this process's stdout (/dev/stdout, a shell's >(…))
// get the document written through, not a regular file renamed over them
// (as root that replaced /dev/stdout itself); a link to a regular file
// gets its target replaced and stays a link; a dangling link creates its
// target; a link loop is ELOOP.
func TestE2EOutputNodes(t *testing.T) {
	bin := e2eBinary(t)
	empty := t.TempDir()
	env := baseEnv(t)
	dir := t.TempDir()
	probe := func(t *testing.T, out string) (int, string, string) {
		t.Helper()
		return runProbe(t, bin, dir, env, out, "--no-python", "--root", empty)
	}
	isLink := func(t *testing.T, p string) {
		t.Helper()
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", p, err)
		}
	}
	checkFile := func(t *testing.T, p string) {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasSuffix(b, []byte("\n")) {
			t.Errorf("%s ends with a newline", p)
		}
		checkDocument(t, string(b))
	}

	t.Run("stdout link", func(t *testing.T) {
		link := filepath.Join(dir, "stdout")
		os.Symlink("/proc/self/fd/1", link)
		code, stdout, stderr := probe(t, link)
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if strings.HasSuffix(stdout, "\n") {
			t.Error("a file write gained a newline")
		}
		checkDocument(t, stdout)
		isLink(t, link)
	})

	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		got := make(chan []byte, 1)
		go func() { b, _ := os.ReadFile(fifo); got <- b }()
		code, _, stderr := probe(t, fifo)
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		select {
		case b := <-got:
			checkDocument(t, string(b))
		case <-time.After(hangGuard):
			t.Fatal("the reader of the FIFO got nothing")
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
		}
	})

	t.Run("link to a file", func(t *testing.T) {
		os.Mkdir(filepath.Join(dir, "real"), 0o755)
		target := filepath.Join(dir, "real", "env.json")
		os.WriteFile(target, []byte("{}"), 0o644)
		link := filepath.Join(dir, "link.json")
		os.Symlink("real/env.json", link)
		if code, _, stderr := probe(t, link); code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		isLink(t, link)
		checkFile(t, target)
		if entries, _ := os.ReadDir(filepath.Join(dir, "real")); len(entries) != 1 {
			t.Errorf("left beside the target: %v", entries)
		}
	})

	t.Run("dangling link", func(t *testing.T) {
		link := filepath.Join(dir, "dangling.json")
		os.Symlink("created.json", link)
		if code, _, stderr := probe(t, link); code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		isLink(t, link)
		checkFile(t, filepath.Join(dir, "created.json"))
	})

	t.Run("link loop", func(t *testing.T) {
		a, b := filepath.Join(dir, "loop-a"), filepath.Join(dir, "loop-b")
		os.Symlink("loop-b", a)
		os.Symlink("loop-a", b)
		code, stdout, stderr := probe(t, a)
		want := "aorta-probe: failed to write " + a + ": [Errno 40] Too many levels of symbolic links: '" + a + "'\n"
		if code != 1 || stdout != "" || stderr != want {
			t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
		}
	})
}

// TestE2EHostileRoot runs the binary with --root on a root whose every
// interesting path is a link into a host tree holding a planted ROCm
// machine (fakeroot.Hostile): nothing planted may reach the document.
func TestE2EHostileRoot(t *testing.T) {
	bin := e2eBinary(t)
	root, err := fakeroot.Hostile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := append(baseEnv(t), "ROCM_PATH=/opt/rocm-"+fakeroot.HostileVersion,
		"PYTHONPATH=/usr/lib/python3/dist-packages", "MIOPEN_SYSTEM_DB_PATH=work/db")
	code, out, errs := runProbe(t, bin, t.TempDir(), env, "--root", root, "--extended", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkDocument(t, out)
	for _, m := range []string{fakeroot.Marker, strings.ToLower(fakeroot.Marker), fakeroot.HostileVersion} {
		if i := strings.Index(out, m); i >= 0 {
			t.Errorf("planted %q in the document: …%s…", m, out[max(0, i-300):min(len(out), i+100)])
		}
	}
}
