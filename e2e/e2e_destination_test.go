package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ranMarker is a set of fake tools that each append their name to a file
// when run: a run that checked its destinations first leaves the file
// absent (no collection happened), whatever the timing.
func ranMarker(t *testing.T) (tools, marker string) {
	t.Helper()
	marker = filepath.Join(t.TempDir(), "ran")
	body := "#!/bin/sh\necho \"$0\" >> " + marker + "\n"
	tools = fakeTools(t, map[string]string{"lspci": body, "ip": body, "rocm_agent_enumerator": body,
		"hipconfig": body, "python3": body, "sudo": body})
	return tools, marker
}

// readOnlyDir returns a directory no file can be created in, even by
// root (who ignores mode bits): a read-only bind mount in a private mount
// namespace (unshare -m) when root, mode 0555 otherwise. wrap turns the
// binary's argv into the command that runs it there.
func readOnlyDir(t *testing.T) (dir string, wrap func(argv []string) []string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o755)
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o555)
		return dir, func(argv []string) []string { return argv }
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skipOrFail(t, "a read-only directory for root needs unshare -m and a read-only bind mount: "+err.Error())
	}
	probe := exec.Command(unshare, "-m", "sh", "-c", `mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && ! touch "$0/x" 2>/dev/null`, dir)
	if out, err := probe.CombinedOutput(); err != nil {
		skipOrFail(t, "no read-only bind mount in a private mount namespace here: "+err.Error()+" "+string(out))
	}
	return dir, func(argv []string) []string {
		return append([]string{unshare, "-m", "sh", "-c",
			`mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"`, dir}, argv...)
	}
}

// TestE2EDestinationFirst (issue 28, item 8): OUT, -o, --out-dir and
// capture's ARCHIVE are checked before anything is collected — a missing
// directory, a read-only one, a 300-byte name — each exit 1 with one line
// naming the path, no tool run, nothing left behind.
func TestE2EDestinationFirst(t *testing.T) {
	bin := e2eBinary(t)
	tools, marker := ranMarker(t)
	env := baseEnv(t, tools)
	work := t.TempDir()
	long := strings.Repeat("n", 300) + ".json"
	ro, wrap := readOnlyDir(t)

	// The control: a run that can write does run the tools, so the
	// marker below can tell.
	if code, _, errs := runProbe(t, bin, work, env, filepath.Join(work, "ok.json")); code != 0 {
		t.Fatalf("control run: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the control run ran no fake tool: the test would prove nothing")
	}
	os.Remove(marker)
	os.Remove(filepath.Join(work, "ok.json"))

	for _, tc := range []struct {
		name   string
		args   []string
		shown  string // the path the one line names
		errno  string
		ro     bool
		remain string // what the work directory may hold afterwards
	}{
		{"OUT in a missing directory", []string{"nonexist/x.json"}, "nonexist/x.json", "[Errno 2] No such file or directory", false, ""},
		{"-o in a missing directory", []string{"-o", "nonexist/x.json"}, "nonexist/x.json", "[Errno 2] No such file or directory", false, ""},
		{"--out-dir missing", []string{"--out-dir", "nonexist"}, "nonexist/", "[Errno 2] No such file or directory", false, ""},
		{"OUT name of 300 bytes", []string{long}, long, "[Errno 36] File name too long", false, ""},
		{"ARCHIVE in a missing directory", []string{"capture", "/nonexistent/x.cap", "o.json"}, "/nonexistent/x.cap", "[Errno 2] No such file or directory", false, ""},
		{"capture OUT in a missing directory", []string{"capture", "node.cap", "nonexist/x.json"}, "nonexist/x.json", "[Errno 2] No such file or directory", false, ""},
		{"ARCHIVE name of 300 bytes", []string{"capture", strings.Repeat("a", 300) + ".cap", "o.json"}, strings.Repeat("a", 300) + ".cap", "[Errno 36] File name too long", false, ""},
		{"OUT read-only", []string{filepath.Join(ro, "x.json")}, filepath.Join(ro, "x.json"), "", true, ""},
		{"ARCHIVE read-only", []string{"capture", filepath.Join(ro, "x.cap"), "o.json"}, filepath.Join(ro, "x.cap"), "", true, ""},
		{"capture OUT read-only", []string{"capture", "node.cap", filepath.Join(ro, "x.json")}, filepath.Join(ro, "x.json"), "", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv := append([]string{bin}, tc.args...)
			if tc.ro {
				argv = wrap(argv)
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = work, env
			code, stdout, stderr := runCmd(t, cmd)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			// The capture command names itself (docs/usage.md).
			cmdName := "aorta-probe"
			if tc.args[0] == "capture" {
				cmdName = "aorta-probe capture"
			}
			want := cmdName + ": failed to write " + tc.shown
			if code != 1 || stdout != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
				t.Errorf("exit %d, stdout %.80q, stderr %q; want exit 1 and one line %q…", code, stdout, stderr, want)
			}
			errno := tc.errno
			if tc.ro {
				errno = "[Errno 30] Read-only file system"
				if os.Geteuid() != 0 {
					errno = "[Errno 13] Permission denied"
				}
			}
			if !strings.Contains(stderr, errno) {
				t.Errorf("stderr %q does not say %q", stderr, errno)
			}
			if _, err := os.Stat(marker); err == nil {
				b, _ := os.ReadFile(marker)
				os.Remove(marker)
				t.Errorf("collected before failing: ran %q", b)
			}
			if left, _ := os.ReadDir(work); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			if left, _ := os.ReadDir(ro); len(left) != 0 {
				t.Errorf("left in the read-only directory: %v", left)
			}
		})
	}
}

// TestE2ECaptureLeavesNothing (item 8): a capture whose document cannot
// be written after the collection (a failed --field lookup here, a
// reader gone, a full disk) leaves no archive: it is staged beside
// ARCHIVE and put in place only once the document is written.
func TestE2ECaptureLeavesNothing(t *testing.T) {
	bin := e2eBinary(t)
	work := t.TempDir()
	env := baseEnv(t)
	code, _, stderr := runProbe(t, bin, work, env, "capture", "node.cap", "--no-python", "--field", "rocm.no_such_key")
	if code != 1 || !strings.Contains(stderr, "--field") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming --field", code, stderr)
	}
	if left, _ := os.ReadDir(work); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	// The control: the same capture with a valid field leaves the archive.
	if code, _, stderr := runProbe(t, bin, work, env, "capture", "node.cap", "--no-python", "--field", "schema_version"); code != 0 {
		t.Fatalf("control: exit %d: %s", code, stderr)
	}
	if left, _ := os.ReadDir(work); len(left) != 1 || left[0].Name() != "node.cap" {
		t.Errorf("control: the directory holds %v, want node.cap", left)
	}
}

// TestE2ECaptureLinks (issue 28, item 4): an OUT that is a link to the
// ARCHIVE, or an ARCHIVE that is a link to OUT, is refused (exit 2,
// before collecting) even when the link dangles: writing through it
// would create the other file, and the document would replace the
// archive.
func TestE2ECaptureLinks(t *testing.T) {
	bin := e2eBinary(t)
	tools, marker := ranMarker(t)
	env := baseEnv(t, tools)
	for _, tc := range []struct {
		name, link, target string
		args               []string
	}{
		{"OUT a dangling link to ARCHIVE", "y.cap", "x.cap", []string{"capture", "x.cap", "y.cap"}},
		{"ARCHIVE a dangling link to OUT", "a.cap", "o.json", []string{"capture", "a.cap", "o.json"}},
		{"-o a dangling link to ARCHIVE", "y.json", "x.cap", []string{"capture", "x.cap", "-o", "y.json"}},
		{"a link through a linked directory", "d/y.json", "../x.cap", []string{"capture", "x.cap", "l/y.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			os.Mkdir(filepath.Join(work, "d"), 0o755)
			os.Symlink("d", filepath.Join(work, "l"))
			if err := os.Symlink(tc.target, filepath.Join(work, tc.link)); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runProbe(t, bin, work, env, tc.args...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, "ARCHIVE") || !strings.Contains(stderr, "give the document another path") {
				t.Errorf("exit %d, stdout %.80q, stderr %q; want exit 2 naming the ARCHIVE", code, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(work, tc.link)); err == nil {
				t.Errorf("the link's target was created")
			}
			if _, err := os.Stat(marker); err == nil {
				os.Remove(marker)
				t.Errorf("collected before refusing")
			}
		})
	}
}
