package probe

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/buck"
	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

var update = flag.Bool("update", false, "rewrite the golden documents under testdata/golden")

// fixedNow is the clock of every scenario: timestamps are constant and
// every measured duration is zero.
var fixedNow = func() time.Time { return time.Date(2026, 4, 28, 12, 0, 0, 0, time.UTC) }

// scenarioOptions turns an archive's settings into Options over root:
//
//	env: NAME=value        one environment variable (repeatable); nothing else is set;
//	                       $ROOT in the value is the expanded root (env: TMPDIR=$ROOT/tmp)
//	path: bin usr/bin      tool directories, relative to the root (default: bin)
//	uname: R | V | M       uname(2) answer (default a fixed Ubuntu kernel)
//	uname-error: EPERM     uname(2) fails
//	cwd: /work             working directory for relative paths
//	extended: true         --extended
//	execution-context: X   --execution-context X
//	buck-target: T         --buck-target T
//	buck-option: TYPE=V    --buck-option TYPE=V (repeatable, ordered)
//
// and a section "-- path [errno OP NAME] --" (OP open, stat, lstat or
// readlink) makes that operation on /path fail with NAME (Options.faults):
// with "-- path [dir] --" as well, a directory that exists but cannot be
// listed, which a test running as root cannot otherwise have.
//
// testTempName is Options.TempName in tests: the rdhc temp file name,
// hence the argv recorded in golden documents, is stable (scenarios put
// the file under their own root with env: TMPDIR=$ROOT/tmp, so names never
// clash).
func testTempName(attempt int) string { return fmt.Sprintf("test%04d", attempt) }

func scenarioOptions(t *testing.T, root string, a *fakeroot.Archive) Options {
	t.Helper()
	env := map[string]string{}
	opt := Options{
		// No scenario is about timeouts: its fake tools answer at once,
		// however long a loaded machine takes to start them.
		Root: root, Now: fixedNow, Cwd: "/", Runner: patientRunner{t}, TempName: testTempName,
		Uname: func() (Uname, error) {
			return Uname{Release: "6.8.0-49-generic", Version: "#49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024", Machine: "x86_64"}, nil
		},
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	var path []string
	var buckOpts []buck.Option
	for _, kv := range a.Settings() {
		switch k, v := kv[0], kv[1]; k {
		case "env":
			name, val, _ := strings.Cut(v, "=")
			env[name] = strings.ReplaceAll(val, "$ROOT", root)
		case "path":
			for _, d := range strings.Fields(v) {
				path = append(path, filepath.Join(root, d))
			}
		case "uname":
			f := strings.Split(v, "|")
			if len(f) != 3 {
				t.Fatalf("uname setting needs three fields: %q", v)
			}
			u := Uname{Release: strings.TrimSpace(f[0]), Version: strings.TrimSpace(f[1]), Machine: strings.TrimSpace(f[2])}
			opt.Uname = func() (Uname, error) { return u, nil }
		case "uname-error":
			opt.Uname = func() (Uname, error) { return Uname{}, fmt.Errorf("%s", v) }
		case "cwd":
			opt.Cwd = v
		case "extended":
			opt.Extended = v == "true"
		case "execution-context":
			opt.ExecutionContext = v
		case "buck-target":
			opt.Buck.Target = v
		case "buck-option":
			o, err := buck.ParseOption(v)
			if err != nil {
				t.Fatalf("buck-option %q: %v", v, err)
			}
			buckOpts = append(buckOpts, o)
		}
	}
	if len(buckOpts) > 0 {
		c, err := buck.NewContext(buckOpts, nil, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		opt.Buck.Context = c
	}
	for _, f := range a.Files {
		if f.Errno == "" {
			continue
		}
		op, name, ok := strings.Cut(f.Errno, " ")
		if !ok {
			t.Fatalf("%s: [errno %s] needs an operation and an errno name", f.Path, f.Errno)
		}
		if opt.faults == nil {
			opt.faults = map[string]syscall.Errno{}
		}
		opt.faults[op+" /"+f.Path] = machine.ErrnoByName(name)
	}
	if path == nil {
		path = []string{filepath.Join(root, "bin")}
	}
	opt.Path = path
	return opt
}

// collectScenario expands an archive and collects over it.
func collectScenario(t *testing.T, archive string) *schema.Snapshot {
	return collectScenarioWith(t, archive, scenarioConfig{})
}

// scenarioConfig varies how a scenario is collected; the document must not
// change with it.
type scenarioConfig struct {
	portable bool // the portable path walk instead of openat2 (machine.FS)
	workers  int  // Options.Workers (0: the default)
}

// collectScenarioWith is collectScenario under cfg.
func collectScenarioWith(t *testing.T, archive string, cfg scenarioConfig) *schema.Snapshot {
	t.Helper()
	root := t.TempDir()
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	a, err := fakeroot.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	if IsCapture(a) {
		// A capture of a real place (docs/capture.md): replayed, never
		// reading or running anything of this machine.
		r, err := machine.NewReplay(a, root)
		if err != nil {
			t.Fatal(err)
		}
		opt = replayOptions(r, Options{Now: fixedNow})
	} else {
		if err := a.Expand(root); err != nil {
			t.Fatal(err)
		}
		opt = scenarioOptions(t, root, a)
	}
	opt.PortableResolve = cfg.portable
	opt.Workers = cfg.workers
	snap := Collect(context.Background(), opt)
	// The temporary directory is not part of the scenario: commands found
	// on the scenario's PATH (run by absolute path) and temp files under
	// $ROOT are recorded as the machine would see them.
	snap.Provenance.Root = "/"
	for i := range snap.Provenance.Commands {
		argv := snap.Provenance.Commands[i].Argv
		for j := range argv {
			argv[j] = strings.ReplaceAll(argv[j], root, "")
		}
	}
	return snap
}

// TestScenarios collects every fake machine root under testdata/roots and
// compares the document with its golden file (go test ./... -update
// rewrites them).
func TestScenarios(t *testing.T) {
	archives, err := filepath.Glob("../testdata/roots/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no scenario archives found (%v)", err)
	}
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".txtar")
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("../testdata/golden", name+".json")
			got := pyjson.Encode(collectScenario(t, a))
			compareGolden(t, golden, got)
			// The portable resolver gives the same document.
			if walked := pyjson.Encode(collectScenarioWith(t, a, scenarioConfig{portable: true})); !*update && !bytes.Equal(walked, got) {
				t.Errorf("%s with the portable walk differs from openat2's:\n%s", golden, lineDiff(got, walked))
			}
		})
	}
}

// TestScenariosSerial: under low resource limits the collection runs one
// probe and one command at a time (Options.Workers = 1); the documents,
// command records included, are the same goldens.
func TestScenariosSerial(t *testing.T) {
	archives, _ := filepath.Glob("../testdata/roots/*.txtar")
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".txtar")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("../testdata/golden", name+".json"))
			if err != nil {
				t.Skip("no golden yet")
			}
			if got := pyjson.Encode(collectScenarioWith(t, a, scenarioConfig{workers: 1})); !bytes.Equal(got, want) {
				t.Errorf("serial collection differs from %s.json", name)
			}
		})
	}
}

// compareGolden compares got with the golden file, or rewrites it with -update.
func compareGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./... -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./... -update rewrites it):\n%s", golden, lineDiff(want, got))
	}
}

// lineDiff shows the first differing line with a little context.
func lineDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			var b strings.Builder
			for j := max(0, i-3); j < i; j++ {
				fmt.Fprintf(&b, "  %4d  %s\n", j+1, w[j])
			}
			fmt.Fprintf(&b, "- %4d  %s\n+ %4d  %s\n", i+1, wl, i+1, gl)
			return b.String()
		}
	}
	return "(no line differs; lengths differ)"
}

// TestIsolationScenarios pins what each isolation scenario must conclude,
// independently of the golden bytes.
func TestIsolationScenarios(t *testing.T) {
	for _, tc := range []struct {
		scenario      string
		typ           string
		detected      bool
		mustFire      []string
		contradiction string
	}{
		{"docker-container", "docker", true, []string{"dockerenv", "self_cgroup_runtime", "pid_ns_not_initial", "root_mount_container_like"}, ""},
		{"k8s-pod", "baremetal", true, []string{"pid_ns_not_initial", "cgroup_ns_not_initial", "probe_is_pid1", "kubernetes_service_env"}, "signals are all silent"},
		{"bwrap-sandbox", "baremetal", true, []string{"user_ns_not_initial", "user_ns_uid_map", "pid_ns_not_initial", "root_mount_container_like"}, "signals are all silent"},
		{"vm-with-dockerenv", "docker", true, []string{"dockerenv"}, "every readable namespace is the kernel's initial one"},
		{"empty", "baremetal", true, []string{"procfs_missing"}, "signals are all silent"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			snap := collectScenario(t, "../testdata/roots/"+tc.scenario+".txtar")
			if snap.RuntimeContext.Type != tc.typ || snap.ContainerDetected != tc.detected {
				t.Errorf("type %q detected %v, want %q %v", snap.RuntimeContext.Type, snap.ContainerDetected, tc.typ, tc.detected)
			}
			fired := map[string]bool{}
			for _, sg := range snap.Provenance.Isolation.Signals {
				fired[sg.Name] = sg.Fired
			}
			for _, n := range tc.mustFire {
				if !fired[n] {
					t.Errorf("signal %s did not fire", n)
				}
			}
			joined := strings.Join(snap.Provenance.Isolation.Contradictions, "\n")
			if (tc.contradiction == "") != (joined == "") || !strings.Contains(joined, tc.contradiction) {
				t.Errorf("contradictions %q, want one containing %q", joined, tc.contradiction)
			}
		})
	}
}
