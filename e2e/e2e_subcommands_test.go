package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The subcommands (diff, validate, env-names, help) through the static
// binary: signals, bounded input, write errors (docs/usage.md).

// blockedInOpen waits (bounded) until a thread of pid sits in openat(2):
// the subcommand has passed its start-up (the signal handler is in place)
// and waits for the other end of a FIFO.
func blockedInOpen(t *testing.T, p *probeRun) {
	t.Helper()
	pid := p.cmd.Process.Pid
	limit := time.Now().Add(hangGuard)
	for time.Now().Before(limit) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			if nr, _, _ := strings.Cut(string(b), " "); nr == fmt.Sprint(syscall.SYS_OPENAT) {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("exited before blocking on the FIFO; stderr %q", p.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatalf("not blocked in openat after %v", hangGuard)
}

// TestE2ESubcommandSignals: diff, diff --fleet, diff --env-markers,
// validate, metrics and labels waiting on a FIFO nobody writes stop at SIGINT, SIGTERM and
// SIGHUP with one line and 128+N; env-names writing into a FIFO nobody
// reads ends as the capture's write does (exit 1, one line).
func TestE2ESubcommandSignals(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"diff", []string{"diff", fifo, fifo}},
		{"diff", []string{"diff", "--fleet", fifo}},
		{"diff", []string{"diff", "--env-markers", fifo, fifo}},
		{"validate", []string{"validate", fifo}},
		{"env-names", []string{"env-names", fifo}},
		{"metrics", []string{"metrics", fifo}},
		{"labels", []string{"labels", fifo}},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			t.Run(strings.Join(tc.args[:len(tc.args)-1], " ")+" "+sig.String(), func(t *testing.T) {
				p := startProbe(t, bin, dir, env, tc.args...)
				blockedInOpen(t, p)
				p.cmd.Process.Signal(sig)
				code := p.wait(t)
				name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[sig]
				wantCode, want := 128+int(sig), "aorta-probe "+tc.name+": interrupted by "+name+"\n"
				if tc.name == "env-names" {
					wantCode, want = 1, "aorta-probe env-names: failed to write "+fifo+": interrupted by "+name+"\n"
				}
				if code != wantCode || p.stderr.String() != want || p.stdout.Len() != 0 {
					t.Errorf("exit %d, stderr %q, stdout %q; want exit %d and %q", code, p.stderr.String(), p.stdout.String(), wantCode, want)
				}
			})
		}
	}
}

// TestE2EBoundedInput: diff and validate read every input through one
// bounded reader: /dev/zero is refused at its first byte, an endless
// stream at the cap (64 MiB), each with exit 2 and one line naming the
// input, and the process never holds much more than the cap.
func TestE2EBoundedInput(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	good := filepath.Join("testdata", "golden", "rocm-classic-7.2.json")
	abs, _ := filepath.Abs(good)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "/dev/zero", abs}, "aorta-probe diff: /dev/zero: not JSON: Expecting value: line 1 column 1 (char 0)\n"},
		{[]string{"validate", "/dev/zero"}, "/dev/zero: not JSON: Expecting value: line 1 column 1 (char 0)\n"},
		{[]string{"diff", "-", abs}, "aorta-probe diff: -: larger than 64 MiB: not an env.json document\n"},
		{[]string{"diff", "--env-markers", "-", abs}, "aorta-probe diff: -: larger than 64 MiB: not an env.json document\n"},
		{[]string{"validate", "-"}, "-: larger than 64 MiB: not an env.json document\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir, cmd.Env = dir, env
			if slices.Contains(tc.args, "-") {
				// An endless stream of blanks: valid JSON whitespace,
				// so only the cap can stop it.
				w, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					blanks := bytes.Repeat([]byte{' '}, 1<<20)
					for {
						if _, err := w.Write(blanks); err != nil {
							return
						}
					}
				}()
			}
			p := startCmd(t, cmd)
			code := p.wait(t)
			if code != 2 || p.stderr.String() != tc.want || p.stdout.Len() != 0 {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, p.stderr.String(), tc.want)
			}
			if rss := p.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > 160<<10 { // KiB
				t.Errorf("peak RSS %d KiB: more than 160 MiB for a 64 MiB cap", rss)
			}
		})
	}
}

// TestE2EEnvNamesWriteErrors: env-names keeps the capture's contract:
// stdout that cannot be written (full, closed, a closed pipe) or OUT a
// directory is exit 1 and one line.
func TestE2EEnvNamesWriteErrors(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	for _, tc := range []struct{ redir, want string }{
		{">/dev/full", "aorta-probe env-names: failed to write to stdout: [Errno 28] No space left on device\n"},
		{">&-", "aorta-probe env-names: failed to write to stdout: [Errno 9] Bad file descriptor\n"},
		{"adir", "aorta-probe env-names: failed to write adir: [Errno 21] Is a directory: 'adir'\n"},
	} {
		t.Run(tc.redir, func(t *testing.T) {
			os.Mkdir(filepath.Join(dir, "adir"), 0o755)
			sh := exec.Command("/bin/sh", "-c", `exec "$0" env-names `+tc.redir, bin)
			sh.Dir, sh.Env = dir, env
			code, _, stderr := runCmd(t, sh)
			if code != 1 || stderr != tc.want {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, tc.want)
			}
		})
	}
	t.Run("broken pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(bin, "env-names")
		cmd.Dir, cmd.Env, cmd.Stdout = dir, env, w
		p := startCmd(t, cmd)
		w.Close()
		want := "aorta-probe env-names: failed to write to stdout: [Errno 32] Broken pipe\n"
		if code := p.wait(t); code != 1 || p.stderr.String() != want {
			t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, p.stderr.String(), want)
		}
	})
	t.Run("written", func(t *testing.T) {
		code, stdout, stderr := runProbe(t, bin, dir, env, "env-names")
		if code != 0 || stderr != "" || !strings.Contains(stdout, `"aorta-probe-env-names/1"`) {
			t.Errorf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
		}
	})
}

// TestE2ESetsidDescendants: tools whose descendants leave their process
// group with setsid and outlive them: the probe, their subreaper, kills
// and reaps every one before it exits.
func TestE2ESetsidDescendants(t *testing.T) {
	bin := e2eBinary(t)
	escaper := `#!/bin/sh
setsid -f sh -c 'echo $$ >> "$E2E_PIDS"; exec sleep 1000' </dev/null >/dev/null 2>&1
setsid -f sh -c 'sleep 1000 & echo $! >> "$E2E_PIDS"; wait' </dev/null >/dev/null 2>&1
exit 0
`
	tools := fakeTools(t, map[string]string{"hipconfig": escaper, "rocm_agent_enumerator": escaper, "lspci": escaper})
	pids, env := pidFile(t, baseEnv(t, tools))
	dir := t.TempDir()
	code, stdout, stderr := runProbe(t, bin, dir, env, "--no-python", "--field", "schema_version")
	if code != 0 || stdout != "\"1.16\"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if n := len(readPids(t, pids)); n < 6 {
		t.Fatalf("only %d escaped processes were started (want 6): the fakes did not all run", n)
	}
	checkNoSurvivors(t, pids)
}

// TestE2EHelpAndUsageErrors: help is a subcommand (a document named help
// needs ./help); --root must name a directory or a capture archive;
// --summary and --field take no path and not each other.
func TestE2EHelpAndUsageErrors(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	code, stdout, stderr := runProbe(t, bin, dir, env, "help")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: aorta-probe [OUT|-] [flags]\n") || stderr != "" {
		t.Errorf("help: exit %d, stdout %.60q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "aorta-probe --root ARCHIVE [OUT|-] [flags]") {
		t.Errorf("help lacks the --root ARCHIVE line")
	}
	code, stdout, _ = runProbe(t, bin, dir, env, "help", "diff")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: aorta-probe diff") {
		t.Errorf("help diff: exit %d, stdout %.60q", code, stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("help wrote %v", entries)
	}
	notArchive := filepath.Join(dir, "notes.txt")
	os.WriteFile(notArchive, []byte("not an archive\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "nope"}, "aorta-probe help: no subcommand \"nope\""},
		{[]string{"--root", "/nonexistent"}, "aorta-probe: --root: [Errno 2] No such file or directory: '/nonexistent'"},
		{[]string{"--root", "/dev/null"}, "aorta-probe: --root '/dev/null' is neither a directory nor a capture archive"},
		{[]string{"--root", notArchive}, "aorta-probe: --root " + notArchive + ": not a capture archive"},
		{[]string{"--summary", "-o", "x.json"}, "aorta-probe: --summary prints to stdout and takes no output path (got 'x.json')"},
		{[]string{"--summary", "--no-python", "x.json"}, "aorta-probe: --no-python is a capture flag: it applies only without DOC (a fresh capture)"},
		{[]string{"--field", "rocm", "-o", "x.json"}, "aorta-probe: --field prints to stdout and takes no output path (got 'x.json')"},
		{[]string{"--summary", "--field", "rocm"}, "aorta-probe: --summary and --field are mutually exclusive"},
		{[]string{"--deadline", "2562048h"}, "aorta-probe: --deadline needs a duration from 1ns to 2562047h47m16s, in Go syntax such as 30s or 2m (got '2562048h')"},
	} {
		code, stdout, stderr := runProbe(t, bin, dir, env, tc.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) || strings.Count(stderr, "\n") != 2 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Errorf("a usage error wrote x.json")
	}
}

// TestE2EFieldIndexes: --field indexes lists; its errors are one
// aorta-probe: line, exit 1.
func TestE2EFieldIndexes(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	quick := []string{"--no-python", "--root", dir}
	code, stdout, _ := runProbe(t, bin, dir, env, append(quick, "--field", "partial_reasons[-1]")...)
	if code != 0 || stdout != "\"python_version: Python bridge disabled (--no-python)\"\n" {
		t.Errorf("partial_reasons[-1]: exit %d, stdout %q", code, stdout)
	}
	code, _, stderr := runProbe(t, bin, dir, env, append(quick, "--field", "rocm[0]")...)
	if want := "aorta-probe: --field rocm[0]: rocm is an object, not an array\n"; code != 1 || stderr != want {
		t.Errorf("rocm[0]: exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// TestE2ECaptureKeepsItsArchive: capture refuses an OUT that is its
// ARCHIVE (the same path, another path to the same file) before anything
// is collected; a replay names its archive in probe_provenance.root and
// says that the archive holds no answer for another --python.
func TestE2ECaptureKeepsItsArchive(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	archive := filepath.Join(dir, "node.cap")
	code, _, stderr := runProbe(t, bin, dir, env, "capture", archive, "--no-python", "-o", filepath.Join(dir, "env.json"))
	if code != 0 {
		t.Fatalf("capture: exit %d, %s", code, stderr)
	}
	before, _ := os.ReadFile(archive)
	os.Link(archive, filepath.Join(dir, "hard.cap"))
	os.Symlink("node.cap", filepath.Join(dir, "soft.cap"))
	for _, out := range []string{"node.cap", "./node.cap", archive, "hard.cap", "soft.cap"} {
		code, _, stderr := runProbe(t, bin, dir, env, "capture", "node.cap", out, "--no-python")
		want := "aorta-probe capture: OUT " + out + " is the ARCHIVE itself; give the document another path\n"
		if code != 2 || !strings.HasPrefix(stderr, want) {
			t.Errorf("capture node.cap %s: exit %d, stderr %q; want exit 2 and %q", out, code, stderr, want)
		}
	}
	if after, _ := os.ReadFile(archive); !bytes.Equal(before, after) {
		t.Errorf("the archive was changed")
	}
	code, stdout, stderr := runProbe(t, bin, dir, env, "--root", "node.cap", "--field", "probe_provenance.root")
	if code != 0 || stdout != fmt.Sprintf("%q\n", archive) {
		t.Errorf("replay root: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, archive)
	}
	code, stdout, _ = runProbe(t, bin, dir, env, "--root", "node.cap", "--python", "/usr/bin/python3", "--field", "partial_reasons[-1]")
	if want := "\"python_version: interpreter /usr/bin/python3: the capture archive holds no answer for it (the capture ran no interpreter)\"\n"; code != 0 || stdout != want {
		t.Errorf("replay --python: exit %d, stdout %q; want %q", code, stdout, want)
	}
}

// TestE2ERDHCTempAfterSIGKILL: a probe killed (SIGKILL) while rdhc runs
// leaves rdhc's temp file behind (no handler runs); the next run that
// uses the same temp directory removes it once it is old enough
// (docs/hardware.md).
func TestE2ERDHCTempAfterSIGKILL(t *testing.T) {
	bin := e2eBinary(t)
	tmp := t.TempDir()
	sudo := "#!/bin/sh\n[ \"$1 $2\" = \"-n -E\" ] || { echo unexpected sudo \"$@\" >&2; exit 64; }\nshift 2\nexec \"$@\"\n"
	hang := "#!/bin/sh\necho $$ >> \"$E2E_PIDS\"\nexec sleep 1000\n"
	quick := "#!/bin/sh\n[ \"$1 $2\" = \"--quick --json\" ] || { echo unexpected rdhc \"$@\" >&2; exit 64; }\necho '{\"rdhc_version\": \"1.0\"}' > \"$3\"\n"
	pids, env := pidFile(t, append(baseEnv(t, fakeTools(t, map[string]string{"sudo": sudo, "rdhc": hang})), "TMPDIR="+tmp))
	p := startProbe(t, bin, tmp, env, "--no-python", filepath.Join(t.TempDir(), "env.json"))
	waitForPids(t, pids, 1)
	p.cmd.Process.Kill()
	p.wait(t)
	left, _ := filepath.Glob(filepath.Join(tmp, "rdhc_quick_*.json"))
	if len(left) != 1 {
		t.Fatalf("after SIGKILL: %v, want one rdhc temp file", left)
	}
	// Younger than the limit it is kept (a run may still be using it);
	// older, the next run removes it.
	env = append(baseEnv(t, fakeTools(t, map[string]string{"sudo": sudo, "rdhc": quick})), "TMPDIR="+tmp)
	if code, _, stderr := runProbe(t, bin, tmp, env, "--no-python", "--field", "system_health"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(left[0]); err != nil {
		t.Fatalf("a fresh temp file was removed: %v", err)
	}
	old := time.Now().Add(-16 * time.Minute)
	os.Chtimes(left[0], old, old)
	code, stdout, stderr := runProbe(t, bin, tmp, env, "--no-python", "--field", "system_health")
	if code != 0 || stdout != "{\"rdhc_version\": \"1.0\"}\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if rest, _ := filepath.Glob(filepath.Join(tmp, "rdhc_quick_*.json")); len(rest) != 0 {
		t.Errorf("left behind: %v", rest)
	}
}

// TestE2EBriefWords: the brief says in words what is not known: no amdgpu
// found, torch not importable, and for Debian's torch (dist-packages, no
// wheel RECORD, git_version "Unknown") neither "install=wheel" nor a
// github link to tree/Unknown, in the brief or in the reasons after it.
func TestE2EBriefWords(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	dir := t.TempDir()
	env := baseEnv(t)
	code, stdout, stderr := runProbe(t, bin, dir, env, "--no-python", "--root", dir, "--summary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"\n  amdgpu:    absent (no amdgpu package or loaded module found)  kfd=no\n",
		"\n  torch build: torch not importable: no build to describe\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("brief lacks %q:\n%s", want, stdout)
		}
	}
	out, err := exec.Command("/usr/bin/python3", "-c", "import torch; print(torch.version.git_version)").Output()
	if err != nil || strings.TrimSpace(string(out)) != "Unknown" {
		t.Skip("no torch whose git_version is Unknown (Debian's python3-torch) in /usr/bin/python3")
	}
	code, stdout, stderr = runProbe(t, bin, dir, env, "--python", "/usr/bin/python3", "--summary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := ""
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "  torch build: ") {
			line = l
		}
	}
	want := "  torch build: git_commit=Unknown install=prebuilt (a wheel or a distribution package: no source tree, not editable) [third_party SHAs: this torch records no git commit; set AORTA_PYTORCH_SRC=<src>]"
	if line != want {
		t.Errorf("torch build line\n got %q\nwant %q", line, want)
	}
	// The reasons after the brief drop the document's link to
	// tree/Unknown too (the document keeps it: cli/brief's
	// TestSummaryReasons).
	reason := "\n  - pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; this torch records no git commit (Unknown), so there is no tree to look them up in (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)\n"
	if strings.Contains(stdout, "tree/Unknown") || !strings.Contains(stdout, reason) {
		t.Errorf("the summary's reasons hold a link to tree/Unknown or lack %q:\n%s", reason, stdout)
	}
}
