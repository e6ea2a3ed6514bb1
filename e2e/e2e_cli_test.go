package e2e

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The command-line promises seen through the static binary: stdout that
// cannot be written, OUT names and nodes the atomic write must cope with,
// signals, usage errors.

// TestE2EStdoutWriteFailures: a failed or short write to stdout is exit 1
// with one line on stderr, whatever goes there (the document, --field,
// --summary, --help); stdout that is merely /dev/null is written.
func TestE2EStdoutWriteFailures(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	empty := t.TempDir()
	env := baseEnv(t)
	quick := []string{"--no-python", "--root", empty}
	outputs := map[string][]string{
		"document":  append([]string{"-"}, quick...),
		"no OUT":    quick,
		"--field":   append([]string{"--field", "schema_version"}, quick...),
		"--summary": append([]string{"--summary"}, quick...),
		"--help":    {"--help"},
	}
	// runWith runs bin with stdout set up by the shell redirection redir.
	runWith := func(t *testing.T, redir string, args []string) (int, string) {
		t.Helper()
		sh := exec.Command("/bin/sh", append([]string{"-c", `exec "$0" "$@" ` + redir, bin}, args...)...)
		sh.Dir, sh.Env = empty, env
		code, _, stderr := runCmd(t, sh)
		return code, stderr
	}
	for _, tc := range []struct{ redir, errno string }{
		{">&-", "[Errno 9] Bad file descriptor"},
		{"<&- >&-", "[Errno 9] Bad file descriptor"},
		{">/dev/full", "[Errno 28] No space left on device"},
	} {
		for name, args := range outputs {
			t.Run(tc.redir+" "+name, func(t *testing.T) {
				code, stderr := runWith(t, tc.redir, args)
				want := "aorta-probe: failed to write to stdout: " + tc.errno + "\n"
				if code != 1 || stderr != want {
					t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
				}
			})
		}
	}
	// Not closed: /dev/null written to, or shared read-write with stdin
	// as daemon(3) leaves it.
	for _, redir := range []string{">/dev/null", "<>/dev/null >&0"} {
		t.Run(redir, func(t *testing.T) {
			if code, stderr := runWith(t, redir, outputs["document"]); code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
		})
	}
	t.Run("broken pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(bin, outputs["document"]...)
		cmd.Dir, cmd.Env, cmd.Stdout = empty, env, w
		p := startCmd(t, cmd)
		w.Close()
		want := "aorta-probe: failed to write to stdout: [Errno 32] Broken pipe\n"
		if code := p.wait(t); code != 1 || p.stderr.String() != want {
			t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, p.stderr.String(), want)
		}
	})
}

// TestE2EOutputNames: an OUT name as long as the filesystem allows is
// written (the temporary name does not grow with it), and stale temporary
// files of a killed probe are removed on the next run, nothing else.
func TestE2EOutputNames(t *testing.T) {
	bin := e2eBinary(t)
	empty := t.TempDir()
	env := baseEnv(t)
	probe := func(t *testing.T, out string) {
		t.Helper()
		code, stdout, stderr := runProbe(t, bin, empty, env, out, "--no-python", "--root", empty)
		if code != 0 || stdout != "" || stderr != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		checkDocument(t, string(b))
	}

	t.Run("long name", func(t *testing.T) {
		dir := t.TempDir()
		for _, n := range []int{240, 255} {
			out := filepath.Join(dir, strings.Repeat("n", n-5)+".json")
			probe(t, out)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 2 {
			t.Errorf("left in the directory: %v", entries)
		}
	})

	// The temporary file goes where the kernel resolves OUT's directory:
	// through a link to another filesystem (/dev/shm, when it is one), a
	// lexical ".." would put it on this one and the rename would fail.
	t.Run("dot-dot after a linked directory", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real")
		var here, shm syscall.Stat_t
		if syscall.Stat(dir, &here) == nil && syscall.Stat("/dev/shm", &shm) == nil && here.Dev != shm.Dev {
			if d, err := os.MkdirTemp("/dev/shm", "e2e-"); err == nil {
				t.Cleanup(func() { os.RemoveAll(d) })
				real = d
			}
		}
		os.MkdirAll(filepath.Join(real, "sub"), 0o755)
		os.Symlink(filepath.Join(real, "sub"), filepath.Join(dir, "link"))
		probe(t, filepath.Join(dir, "link")+"/../env.json") // the kernel's "..": real/env.json
		if _, err := os.Stat(filepath.Join(real, "env.json")); err != nil {
			t.Errorf("not written where the kernel resolves it: %v", err)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "link" && e.Name() != "real" {
				t.Errorf("left in OUT's lexical directory: %s", e.Name())
			}
		}
	})

	t.Run("stale temporary files", func(t *testing.T) {
		dir := t.TempDir()
		old := time.Now().Add(-time.Hour)
		const deadPid = "99999999" // above any pid_max (2^22)
		live := "1"
		files := map[string]struct {
			mtime  time.Time
			remove bool
		}{
			".aorta-probe-" + deadPid + "-123456789.tmp": {old, true},
			".aorta-probe-" + deadPid + "-42.tmp":        {time.Now(), false}, // may still be written
			".aorta-probe-" + live + "-123.tmp":          {old, false},        // its writer lives
			".aorta-probe-" + deadPid + "-12x.tmp":       {old, false},        // not our pattern
			".env.json.123456.tmp":                       {old, false},        // not our pattern
			".aorta-probe-" + deadPid + "-7.tmp.keep":    {old, false},
		}
		for name, f := range files {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, f.mtime, f.mtime)
		}
		// A link with our name: never followed, never removed.
		target := filepath.Join(t.TempDir(), "target")
		os.WriteFile(target, nil, 0o600)
		link := filepath.Join(dir, ".aorta-probe-"+deadPid+"-9.tmp")
		os.Symlink(target, link)

		probe(t, filepath.Join(dir, "env.json"))
		for name, f := range files {
			_, err := os.Lstat(filepath.Join(dir, name))
			if f.remove && err == nil {
				t.Errorf("stale %s was not removed", name)
			}
			if !f.remove && err != nil {
				t.Errorf("%s was removed: %v", name, err)
			}
		}
		if _, err := os.Lstat(link); err != nil {
			t.Errorf("the link was removed: %v", err)
		}
		if _, err := os.Stat(target); err != nil {
			t.Errorf("the link's target was removed: %v", err)
		}
	})
}

// TestE2EFIFOWithoutReader: OUT a FIFO nobody opens for reading; the probe
// does not wait for ever: a signal received while it waits ends it, and
// the deadline bounds the wait; both are exit 1 with one line. A reader
// that comes late still gets the document.
func TestE2EFIFOWithoutReader(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	empty := t.TempDir()
	env := baseEnv(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	args := []string{fifo, "--no-python", "--root", empty}

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			// A hanging python3 shows the probe is collecting: its handler
			// is installed (a signal before it kills, BenchmarkE2EEarlySignal).
			pids, env := pidFile(t, baseEnv(t, fakeTools(t, map[string]string{"python3": stubborn})))
			p := startProbe(t, bin, dir, env, fifo)
			waitForPids(t, pids, 2)
			// The first signal ends the collection (whose document is
			// still to be written); one that comes while the write waits
			// ends the wait. Signal until the probe exits.
			limit := time.Now().Add(hangGuard)
			for exited := false; !exited && time.Now().Before(limit); {
				p.cmd.Process.Signal(sig)
				select {
				case <-p.done:
					exited = true
				case <-time.After(20 * time.Millisecond):
				}
			}
			want := "aorta-probe: failed to write " + fifo + ": interrupted by SIG" + map[syscall.Signal]string{syscall.SIGTERM: "TERM", syscall.SIGHUP: "HUP"}[sig] + "\n"
			if code := p.wait(t); code != 1 || p.stderr.String() != want {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, p.stderr.String(), want)
			}
		})
	}

	t.Run("deadline", func(t *testing.T) {
		code, _, stderr := runProbe(t, bin, dir, env, append(args, "--deadline", "1s")...)
		want := "aorta-probe: failed to write " + fifo + ": timed out: no reader took the document by the deadline\n"
		if code != 1 || stderr != want {
			t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
		}
	})

	t.Run("late reader", func(t *testing.T) {
		p := startProbe(t, bin, dir, env, args...)
		// Open for reading once the probe is under way (it may or may not
		// have reached the write yet: both must work).
		f, err := os.Open(fifo)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, _ := bufio.NewReader(f).ReadBytes(0)
		if code := p.wait(t); code != 0 {
			t.Fatalf("exit %d, stderr %q", code, p.stderr.String())
		}
		checkDocument(t, string(b))
	})
}

// TestE2ESIGHUP: SIGHUP (a dropped ssh session) mid-run ends the capture
// as SIGTERM does: a whole document, no tool left behind.
func TestE2ESIGHUP(t *testing.T) {
	bin := e2eBinary(t)
	pids, env := pidFile(t, baseEnv(t, fakeTools(t, map[string]string{"python3": stubborn, "hipconfig": stubborn})))
	outDir := t.TempDir()
	out := filepath.Join(outDir, "env.json")
	p := startProbe(t, bin, outDir, env, out)
	m := signalMidRun(t, p, pids, 2, syscall.SIGHUP, out)
	found := false
	for _, r := range reasonsOf(m) {
		found = found || strings.HasSuffix(r, ": not captured (collection interrupted)")
	}
	if !found {
		t.Errorf("no '… (collection interrupted)' reason in %q", reasonsOf(m))
	}
	checkNoSurvivors(t, pids)
}

// TestE2EUsageErrors: command lines that are wrong are exit 2 with the
// message and the hint, before anything is collected.
func TestE2EUsageErrors(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{""}, "OUT must be a non-empty path"},
		{[]string{"-o", ""}, "option -o requires a non-empty path"},
		{[]string{"--buck-target", "//a:b", "--buck-timeout", "18446744074"}, "Invalid value for '--buck-timeout': 18446744074 is not in the range 1<=x<=9223372036."},
		{[]string{"--buck-target", "//a:b", "--buck-timeout", "9223372037"}, "9223372037 is not in the range 1<=x<=9223372036."},
		{[]string{"--buck-target", "//a:b", "--buck-timeout", "99999999999999999999999"}, "99999999999999999999999 is not in the range"},
		{[]string{"--deadline", "9999999999h"}, "--deadline needs a duration from 1ns to 2562047h47m16s, in Go syntax such as 30s or 2m (got '9999999999h')"},
		{[]string{"--deadline", "2562048h"}, "(got '2562048h')"},
	} {
		code, stdout, stderr := runProbe(t, bin, dir, env, tc.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "aorta-probe: ") || !strings.Contains(stderr, tc.want) ||
			!strings.HasSuffix(stderr, "\nTry 'aorta-probe --help' for help.\n") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a usage error wrote %v", entries)
	}
	code, stdout, _ := runProbe(t, bin, dir, env, "-h")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: aorta-probe") {
		t.Errorf("-h: exit %d, stdout %.40q", code, stdout)
	}
}

// TestE2EFieldDeepDocument: --field takes its value from the capture, not
// from the whole document decoded again, so a deep value elsewhere never
// makes it fail. The probe bounds what it takes from tools to 32 levels
// (docs/python.md), so the deepest rdhc report it keeps is used here;
// deeper nesting is covered by schema's TestFieldDeepValue.
func TestE2EFieldDeepDocument(t *testing.T) {
	bin := e2eBinary(t)
	deep := strings.Repeat("[", 32) + strings.Repeat("]", 32)
	tools := fakeTools(t, map[string]string{
		"sudo": "#!/bin/sh\n[ \"$1 $2\" = \"-n -E\" ] || exit 99\nshift 2\nexec \"$@\"\n",
		"rdhc": "#!/bin/sh\n[ \"$1 $2\" = \"--quick --json\" ] || exit 99\nprintf '%s' '" + deep + "' > \"$3\"\n",
	})
	dir := t.TempDir()
	env := baseEnv(t, tools)
	code, stdout, stderr := runProbe(t, bin, dir, env, "--no-python", "-")
	if code != 0 || !strings.Contains(stdout, "\"system_health\": [\n") {
		t.Fatalf("rdhc's deep report is not in the document (exit %d, stderr %q)", code, stderr)
	}
	code, stdout, stderr = runProbe(t, bin, dir, env, "--no-python", "--field", "schema_version")
	if code != 0 || stdout != "\"1.16\"\n" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runProbe(t, bin, dir, env, "--no-python", "--field", "system_health")
	if code != 0 || stdout != deep+"\n" {
		t.Errorf("--field system_health: exit %d, stdout %.80q", code, stdout)
	}
}

// TestE2ESignalHandlerFirst: the handler for SIGTERM, SIGINT and SIGHUP is
// installed by the first package of this module to be initialised, right
// after os/signal (before the regexps and tables of the others), so a signal in the first instants is handled (the
// window left is measured by BenchmarkE2EEarlySignal, docs/usage.md).
func TestE2ESignalHandlerFirst(t *testing.T) {
	bin := e2eBinary(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(baseEnv(t), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if pkg, ok := strings.CutPrefix(line, "init "); ok {
			order = append(order, strings.Fields(pkg)[0])
		}
	}
	signalAt, first := -1, -1
	for i, pkg := range order {
		if pkg == "aorta-probe/internal/signals" {
			signalAt = i
		}
		if strings.HasPrefix(pkg, "aorta-probe") && first < 0 {
			first = i
		}
	}
	if signalAt < 1 || signalAt != first || order[signalAt-1] != "os/signal" {
		t.Fatalf("the signal handler's package is not initialised first of this module, right after os/signal: %q", order)
	}
}

// BenchmarkE2EEarlySignal measures the window in which SIGTERM still kills
// the probe without a document: per delay after exec, the share of runs
// that wrote one (docs/usage.md). Run with -benchtime 25x.
func BenchmarkE2EEarlySignal(b *testing.B) {
	bin := buildStaticProbe(b)
	empty := b.TempDir()
	for _, delay := range []time.Duration{500 * time.Microsecond, time.Millisecond, 1500 * time.Microsecond, 2 * time.Millisecond} {
		b.Run(delay.String(), func(b *testing.B) {
			docs := 0
			for range b.N {
				cmd := exec.Command(bin, "-", "--no-python", "--root", empty)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				for start := time.Now(); time.Since(start) < delay; {
				}
				cmd.Process.Signal(syscall.SIGTERM)
				if cmd.Wait() == nil && bytes.HasPrefix(out.Bytes(), []byte("{")) {
					docs++
				}
			}
			b.ReportMetric(float64(docs)/float64(b.N), "docs/run")
		})
	}
}

// TestE2EIgnoredSIGHUP: a probe started with SIGHUP ignored (nohup) keeps
// ignoring it: the capture is not interrupted.
func TestE2EIgnoredSIGHUP(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	pids, env := pidFile(t, baseEnv(t, fakeTools(t, map[string]string{"python3": stubborn})))
	outDir := t.TempDir()
	out := filepath.Join(outDir, "env.json")
	p := startProbe(t, "/bin/sh", outDir, env, "-c", `trap '' HUP; exec "$0" "$@"`, bin, out, "--deadline", "2s")
	for _, r := range reasonsOf(signalMidRun(t, p, pids, 2, syscall.SIGHUP, out)) {
		if strings.HasSuffix(r, "(collection interrupted)") {
			t.Errorf("an ignored SIGHUP interrupted the capture: %q", r)
		}
	}
	checkNoSurvivors(t, pids)
}
