package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"aorta-probe/internal/sandbox"
	"aorta-probe/internal/testtree"
)

// truthRows is the truth table of docs/triage.md ("The truth table"):
// real pairs of places, each run through the built binary, with the
// verdict `aorta-probe diff A B` must give. first is the prefix of the
// first line; says must appear in the report.
var truthRows = []struct {
	a, b  string
	code  int
	first string
	level string
	grade string
	says  string
}{
	{"host", "host-again", 0, "same place\n", "same_place", "proof", ""},
	{"host", "buck2-local", 0, "same place\n", "same_place", "proof", "B ran as a local Buck2 action"},
	{"unshare-m", "unshare-m-again", 1, "different places: same machine and boot, another namespace: mnt\n", "another_namespace", "proof", ""},
	{"host", "unshare-n", 1, "different places: same machine and boot, another namespace: net\n", "another_namespace", "proof", ""},
	{"bwrap", "bwrap-again", 1, "different places: same machine and boot, another namespace", "another_namespace", "proof", ""},
	{"bwrap", "docker", 1, "different places: same machine and boot, another container", "another_namespace", "proof", ""},
	{"podman", "docker", 1, "different places: same machine and boot, another container", "another_namespace", "proof", ""},
	{"docker-own", "docker-exec", 0, "same place\n", "same_place", "proof", ""},
	{"docker-own", "nsenter", 0, "same place", "same_place", "proof", ""},
	{"capture-live", "replay", 0, "same place\n", "same_place", "proof", "B is a replay of a capture"},
	{"host", "older-kernel", 0, "same place (advisory: namespace inodes are reused)\n", "same_place", "advisory", ""},
	{"host", "chroot-shared", 1, "different places: same machine and boot, another root\n", "another_root", "proof", "another directory of the same mount (a chroot)"},
	{"no-statx", "chroot-no-statx", 1, "different places: same machine and boot, another root (device and inode)\n", "another_root", "advisory", "another root directory, or another boot (device and inode)"},
}

// TestDiffTruthTable runs the truth table as root: every place is a real
// run of the static binary (a sandbox, a container of a private Docker
// engine, a capture and its replay, a kernel without the nsfs ioctls
// simulated by a seccomp filter: seccomp_nsfs_test.go), and every pair is
// diffed by the binary in the three formats. A place that cannot be made
// here skips its rows, and fails them under
// AORTA_PROBE_REQUIRE_SANDBOXES=1. The rows run in parallel; each place is
// made once, by the first row that needs it.
func TestDiffTruthTable(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the static binary in sandboxes")
	}
	bin := buildStaticProbe(t)
	dir := t.TempDir()
	p := &places{bin: bin, dir: dir, made: map[string]func() placeDoc{}}
	for _, row := range truthRows {
		t.Run(row.a+" vs "+row.b, func(t *testing.T) {
			t.Parallel()
			a, b := p.get(t, row.a), p.get(t, row.b)
			code, out, errs := runCmd(t, exec.Command(bin, "diff", a, b))
			if code != row.code || !strings.HasPrefix(out, row.first) || !strings.Contains(out, row.says) {
				t.Errorf("diff %s %s: exit %d; want %d, first line %q, saying %q\n%s%s", row.a, row.b, code, row.code, row.first, row.says, out, errs)
			}
			for i, l := range strings.Split(out, "\n") {
				if len([]rune(l)) > 80 && !valueLine(l) {
					t.Errorf("line %d over 80 columns: %q", i+1, l)
				}
			}
			verdict, _, _ := strings.Cut(out, "\n")
			t.Logf("%s vs %s: exit %d: %s", row.a, row.b, code, verdict)
			_, js, _ := runCmd(t, exec.Command(bin, "diff", "--format", "json", a, b))
			var got struct {
				Verdict, Level, Grade string
				Evidence              []string
			}
			if err := json.Unmarshal([]byte(js), &got); err != nil {
				t.Fatalf("json: %v\n%s", err, js)
			}
			if !strings.HasPrefix(verdict, got.Verdict) || got.Level != row.level || got.Grade != row.grade {
				t.Errorf("json verdict %q level %q grade %q; want the text's %q, %s, %s", got.Verdict, got.Level, got.Grade, verdict, row.level, row.grade)
			}
			_, md, _ := runCmd(t, exec.Command(bin, "diff", "--format", "markdown", a, b))
			if !strings.HasPrefix(md, "**Verdict: "+got.Verdict+"**") {
				t.Errorf("markdown starts %.100q, want the verdict %q", md, got.Verdict)
			}
		})
	}
}

// placeDoc is a place's document, or why it could not be made.
type placeDoc struct {
	path, skip, err string
}

// places makes each place's document once, on first use; rows that run
// in parallel wait for a place another row is making, and places make
// their documents side by side.
type places struct {
	bin, dir string
	mu       sync.Mutex
	// made maps a place's key to its once-made document (the four
	// Docker places share one: they are made together).
	made map[string]func() placeDoc
}

func (p *places) get(t *testing.T, key string) string {
	t.Helper()
	d := p.doc(key)
	switch {
	case d.skip != "":
		skipOrFail(t, d.skip)
	case d.err != "":
		t.Fatalf("%s: %s", key, d.err)
	}
	return d.path
}

// dockerPlaces are the places DockerPlaces makes together.
var dockerPlaces = []string{"docker", "docker-own", "docker-exec", "nsenter"}

// doc is the document of the place key, made on the first call.
func (p *places) doc(key string) placeDoc {
	p.mu.Lock()
	f, ok := p.made[key]
	switch {
	case ok:
	case slices.Contains(dockerPlaces, key):
		docker := sync.OnceValue(p.docker)
		for _, k := range dockerPlaces {
			p.made[k] = func() placeDoc { return docker()[k] }
		}
		f = p.made[key]
	default:
		f = sync.OnceValue(func() placeDoc { return p.make(key) })
		p.made[key] = f
	}
	p.mu.Unlock()
	return f()
}

func (p *places) make(key string) placeDoc {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	out := filepath.Join(p.dir, key+".json")
	// The runs of this process's own place see no tools (PATH is an
	// empty directory): a tool that times out on a loaded machine must not
	// turn "same place" into "same place, different software"; the place
	// is what the table is about.
	noTools := filepath.Join(p.dir, "no-tools")
	os.MkdirAll(noTools, 0o755)
	run := func(env []string, argv ...string) placeDoc {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), append([]string{"PATH=" + noTools}, env...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			return placeDoc{err: fmt.Sprintf("%s: %v\n%s", strings.Join(argv, " "), err, b)}
		}
		return placeDoc{path: out}
	}
	switch key {
	case "host", "host-again":
		return run(nil, p.bin, out)
	case "buck2-local":
		// The markers buck2's local executor adds (docs/buck2.md): the
		// probe runs on this host, only its environment says "action".
		scratch := "buck-out/v2/tmp/aorta/probe"
		return run([]string{"BUCK_SCRATCH_PATH=" + scratch, "BUCK2_DAEMON_UUID=7b0f5e0a-0000-4000-8000-000000000001",
			"BUCK_BUILD_ID=7b0f5e0a-0000-4000-8000-000000000002", "TMPDIR=" + filepath.Join(p.dir, scratch)}, p.bin, out)
	case "older-kernel":
		if os.Geteuid() != 0 {
			return placeDoc{skip: "the seccomp launcher runs as root here (euid is not 0)"}
		}
		return run([]string{nsfsErrnoEnv + "=ENOTTY"}, os.Args[0], p.bin, out)
	case "capture-live":
		archive := filepath.Join(p.dir, "capture.txtar")
		return run(nil, p.bin, "capture", archive, out)
	case "replay":
		// The replay of capture-live's archive.
		if d := p.doc("capture-live"); d.path == "" {
			return d
		}
		return run(nil, p.bin, "--root", filepath.Join(p.dir, "capture.txtar"), out)
	case "chroot-shared":
		return p.chrootShared(ctx, out, nil)
	case "no-statx", "chroot-no-statx":
		// A kernel without statx (before 4.11) and without the nsfs
		// ioctls, simulated by the seccomp launcher: the root is known by
		// stat's device and inode only.
		if os.Geteuid() != 0 {
			return placeDoc{skip: "the seccomp launcher runs as root here (euid is not 0)"}
		}
		env := []string{nsfsErrnoEnv + "=ENOTTY", statxErrnoEnv + "=ENOSYS"}
		if key == "no-statx" {
			return run(env, os.Args[0], p.bin, out)
		}
		return p.chrootShared(ctx, out, env)
	}
	sbKey := strings.TrimSuffix(key, "-again")
	sb, ok := sandbox.Lookup(sbKey)
	if !ok {
		return placeDoc{err: "no sandbox " + sbKey}
	}
	if why := sb.Unavailable(ctx); why != "" {
		return placeDoc{skip: why}
	}
	scratch, err := os.MkdirTemp(p.dir, key+"-")
	if err != nil {
		return placeDoc{err: err.Error()}
	}
	var log bytes.Buffer
	doc, err := sb.Run(ctx, p.bin, scratch, &log)
	if err != nil {
		return placeDoc{err: fmt.Sprintf("%s: %v\n%s", sb.Label, err, log.String())}
	}
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		return placeDoc{err: err.Error()}
	}
	return placeDoc{path: out}
}

// chrootShared runs the probe in `chroot NEWROOT` with every namespace
// shared: NEWROOT holds the binary and a /proc mounted in this process's
// own mount namespace (unmounted afterwards), so that the boot and the
// namespace ids read as the host's and only the root differs. With
// launcherEnv, chroot runs under the seccomp launcher (this test binary)
// with that environment.
func (p *places) chrootShared(ctx context.Context, out string, launcherEnv []string) placeDoc {
	if os.Geteuid() != 0 {
		return placeDoc{skip: "chroot and mount need root (euid is not 0)"}
	}
	for _, tool := range []string{"chroot", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return placeDoc{skip: tool + " not found: " + err.Error()}
		}
	}
	root, err := os.MkdirTemp(p.dir, "chroot-shared-")
	if err != nil {
		return placeDoc{err: err.Error()}
	}
	for _, d := range []string{"proc", "out"} {
		os.Mkdir(filepath.Join(root, d), 0o755)
	}
	bin, err := os.ReadFile(p.bin)
	if err == nil {
		err = testtree.WriteFile(filepath.Join(root, sandbox.ProbeName), bin, 0o755)
	}
	if err != nil {
		return placeDoc{err: err.Error()}
	}
	proc := filepath.Join(root, "proc")
	if b, err := exec.CommandContext(ctx, "mount", "-t", "proc", "proc", proc).CombinedOutput(); err != nil {
		return placeDoc{skip: fmt.Sprintf("mount -t proc: %v: %s", err, b)}
	}
	defer exec.Command("umount", "-l", proc).Run()
	cmd := exec.CommandContext(ctx, "chroot", root, "/"+sandbox.ProbeName, "/out/env.json")
	if launcherEnv != nil {
		chroot, _ := exec.LookPath("chroot")
		cmd = exec.CommandContext(ctx, os.Args[0], chroot, root, "/"+sandbox.ProbeName, "/out/env.json")
		cmd.Env = append(os.Environ(), launcherEnv...)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return placeDoc{err: fmt.Sprintf("chroot: %v\n%s", err, b)}
	}
	if err := os.Rename(filepath.Join(root, "out", "env.json"), out); err != nil {
		return placeDoc{err: err.Error()}
	}
	return placeDoc{path: out}
}

// docker makes the four Docker places in one private engine.
func (p *places) docker() map[string]placeDoc {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	all := func(d placeDoc) map[string]placeDoc {
		m := map[string]placeDoc{}
		for _, k := range dockerPlaces {
			m[k] = d
		}
		return m
	}
	if sb, _ := sandbox.Lookup("docker"); sb.Unavailable(ctx) != "" {
		return all(placeDoc{skip: sb.Unavailable(ctx)})
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	scratch, err := os.MkdirTemp(p.dir, "docker-")
	if err != nil {
		return all(placeDoc{err: err.Error()})
	}
	var log bytes.Buffer
	docs, err := sandbox.DockerPlaces(ctx, p.bin, goTool, scratch, &log)
	if err != nil {
		return all(placeDoc{err: fmt.Sprintf("%v\n%s", err, log.String())})
	}
	m := map[string]placeDoc{}
	for _, k := range dockerPlaces {
		path := filepath.Join(p.dir, k+".json")
		if err := os.WriteFile(path, docs[k], 0o644); err != nil {
			m[k] = placeDoc{err: err.Error()}
		} else {
			m[k] = placeDoc{path: path}
		}
	}
	return m
}

// TestTruthTableDocumented: every verdict of the truth table is in the
// table of docs/triage.md, with its exit status, so the docs and the test
// describe the same runs.
func TestTruthTableDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("docs", "triage.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "## The truth table")
	if i < 0 {
		t.Fatal("docs/triage.md has no truth table section")
	}
	table := doc[i:]
	table = table[:strings.Index(table[3:], "\n## ")+3]
	rows := -2 // the header and its rule
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows++
		}
	}
	if rows != len(truthRows) {
		t.Errorf("docs/triage.md's truth table has %d rows, TestDiffTruthTable %d", rows, len(truthRows))
	}
	for _, r := range truthRows {
		if want := fmt.Sprintf("| %d | `%s`", r.code, strings.TrimSuffix(r.first, "\n")); !strings.Contains(table, want) {
			t.Errorf("docs/triage.md's truth table lacks %q (%s vs %s)", want, r.a, r.b)
		}
	}
}
