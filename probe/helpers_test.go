package probe

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// within fails the test when f has not returned after a generous bound:
// the readers it exercises must never block.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// resolvers are the two ways machine.FS resolves under a root: openat2 (where
// the kernel has it) and the portable walk, forced by the option.
var resolvers = []struct {
	name     string
	portable bool
}{{"openat2", false}, {"walk", true}}

// hermeticDir is the hermetic system bin (testtree.SystemBin) that tests
// running a collection with their fakes put on the search path instead of
// /usr/bin:/bin. Made once per test process on first use; TestMain
// removes it.
var hermeticDir = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "aorta-probe-hermetic-bin-")
	if err != nil {
		return "", err
	}
	hermeticMade = dir
	return dir, testtree.SystemBin(dir)
})

var hermeticMade string

// TestMain lets the tests that call t.Parallel (they wait on interpreters,
// fake tools and timeouts) overlap 2 per CPU unless -parallel says
// otherwise (testtree.DefaultParallel), and removes the hermetic bin.
// Under -update they run one at a time: they rewrite golden files that
// others read.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == DetachedGPUsArg {
		os.Exit(DetachedGPUs(os.Args[2:])) // the GPU reader, as the binary runs it
	}
	flag.Parse()
	n := testtree.WaitingParallel()
	if golden.Update() {
		n = 1
	}
	testtree.DefaultParallel(n)
	code := m.Run()
	if hermeticMade != "" {
		os.RemoveAll(hermeticMade)
	}
	os.Exit(code)
}

// hermeticPath is dirs followed by the hermetic system bin.
func hermeticPath(t testing.TB, dirs ...string) []string {
	t.Helper()
	dir, err := hermeticDir()
	if err != nil {
		t.Fatalf("hermetic system bin: %v", err)
	}
	return append(dirs[:len(dirs):len(dirs)], dir)
}

// patience bounds the commands of the tests that are not about timeouts;
// it only guards against a hang.
const patience = 2 * time.Minute

// patientRunner runs commands as ExecRunner does with every timeout raised
// to patience: the tests that use it are not about timeouts, and on a
// loaded machine a fake tool may take seconds to start, which must not
// change what the test sees. It checks that no command asks to run
// unbounded.
type patientRunner struct{ t *testing.T }

func (r patientRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	if c.Timeout <= 0 {
		r.t.Errorf("%q runs without a timeout", c.Argv)
	}
	c.Timeout = max(c.Timeout, patience)
	return machine.ExecRunner{}.Run(ctx, c)
}

// TestPatientRunner: a command slower than the timeout it asks for is not
// cut short (the scenario and Buck tests rely on it).
func TestPatientRunner(t *testing.T) {
	r := patientRunner{t}.Run(context.Background(), machine.Command{Path: sh(t, "sleep 0.2; echo done"), Argv: []string{"slow"}, Timeout: 50 * time.Millisecond})
	if r.Err != nil || string(r.Stdout) != "done\n" {
		t.Errorf("got %+v", r)
	}
}

// sh writes script as an executable /bin/sh tool in a temp directory.
var sh = testtree.Script

// Table tests and fuzz targets for the pure parsers of the command-driven
// hardware blocks (hip, gpu_arch, nics, system_health).

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// Tests of the command-driven hardware blocks against hostile tools: ones
// that never exit, print megabytes, die by a signal, or are not executable.
//
// The timeouts are the spec's constants (5 s, 30 s); the probe's Runner seam
// makes them injectable: hostileRunner checks that each command asked for
// its spec timeout, then shortens it for the commands a test names as
// hanging only, so a test waits a fraction of a second for them, and
// lengthens it for every other command, so that a healthy or crashing tool
// is never cut short on a loaded machine: which commands time out is a
// state the test sets, not a race against the wall clock.

const hangTimeout = 100 * time.Millisecond

type hostileRunner struct {
	t    *testing.T
	hang map[string]bool
}

// toolOf is the program a command runs: argv[0]'s base name, or the
// command sudo runs.
func toolOf(argv []string) string {
	if filepath.Base(argv[0]) == "sudo" && len(argv) > 3 {
		return filepath.Base(argv[3])
	}
	return filepath.Base(argv[0])
}

// specTimeout is the timeout the probe gives a tool (docs/hardware.md).
func specTimeout(tool string) time.Duration {
	switch tool {
	case "rdhc", "rdhc.py", "rocm_agent_enumerator":
		return machine.LongTimeout
	}
	return machine.ShortTimeout
}

// hangs reports whether the test named the command as hanging: by its tool
// ("lspci") or by its tool and leading arguments ("nicctl show version").
func (h hostileRunner) hangs(argv []string) bool {
	line := strings.Join(append([]string{toolOf(argv)}, argsOf(argv)...), " ")
	for k := range h.hang {
		if line == k || strings.HasPrefix(line, k+" ") {
			return true
		}
	}
	return false
}

// argsOf is the arguments of the program a command runs (after sudo's).
func argsOf(argv []string) []string {
	if filepath.Base(argv[0]) == "sudo" && len(argv) > 3 {
		return argv[4:]
	}
	return argv[1:]
}

func (h hostileRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	tool := toolOf(c.Argv)
	if want := specTimeout(tool); c.Timeout != want {
		h.t.Errorf("%q runs with timeout %v, want %v", c.Argv, c.Timeout, want)
	}
	c.Timeout = patience
	if h.hangs(c.Argv) {
		c.Timeout = hangTimeout
	}
	return machine.ExecRunner{}.Run(ctx, c)
}

// toolState is a probe state over a fresh root whose bin/ (the whole search
// path) holds the given #!/bin/sh scripts (names with a slash are placed
// relative to the root instead). TMPDIR is <root>/tmp. The commands named
// in hang (hostileRunner.hangs) get hangTimeout.
func toolState(t *testing.T, scripts map[string]string, hang ...string) (*state, string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"bin", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range scripts {
		p := filepath.Join(root, name)
		if !strings.Contains(name, "/") {
			p = filepath.Join(root, "bin", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := testtree.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hr := hostileRunner{t: t, hang: map[string]bool{}}
	for _, h := range hang {
		hr.hang[h] = true
	}
	env := map[string]string{"TMPDIR": filepath.Join(root, "tmp")}
	c := newCollector(context.Background(), Options{
		Seams: machine.Seams{
			Root: root, Path: []string{filepath.Join(root, "bin")}, Cwd: "/", Runner: hr, TempName: testTempName,
			Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		},
		Now: fixedNow,
	})
	c.rocm = func() rocmRoots { return classicRoots("/opt/rocm", "none") }
	return &state{collector: c, name: "test"}, root
}

func wantReasons(t *testing.T, s *state, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(s.reasons, want) {
		t.Errorf("reasons:\n  %s\nwant:\n  %s", strings.Join(s.reasons, "\n  "), strings.Join(want, "\n  "))
	}
}

func allHIPReasons() []string {
	var r []string
	for _, k := range []string{"version", "platform", "compiler", "runtime", "cpp_config"} {
		r = append(r, "hip."+k+": hipconfig --"+k+" returned no usable value")
	}
	return r
}

// rdhcSudo is a fake sudo that runs `sudo -n -E <rdhc> --quick --json F`
// as body with $4 = F.
func rdhcSudo(body string) string {
	return `[ "$1" = -n ] && [ "$2" = -E ] && [ "$4" = --quick ] && [ "$5" = --json ] && [ $# -eq 6 ] || { echo "fake sudo: $*" >&2; exit 99; }
shift 2
` + body
}

// stuckRDHC runs every command as a failure at once, except rdhc, which it
// holds until release is closed, whatever the context says (a runner that
// ignores cancellation: the probe that started rdhc is still inside Run
// when Collect returns).
type stuckRDHC struct{ release chan struct{} }

func (r stuckRDHC) Run(ctx context.Context, c machine.Command) machine.Result {
	if toolOf(c.Argv) == "rdhc" {
		<-r.release
		return machine.Result{ExitCode: -9, Err: machine.ErrTimeout}
	}
	return machine.Result{ExitCode: 1, Err: &machine.ExitError{Code: 1}}
}
