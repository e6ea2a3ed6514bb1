package e2e

import (
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"aorta-probe/internal/testtree"
)

// buildDir holds what the tests of this package build once per test
// process: TestMain creates it and removes it at the end.
var buildDir string

// moduleRoot is the absolute path of the module root, where TestMain runs
// the tests and staticProbe builds (whatever directory a test is in).
var moduleRoot string

// buildEnv and goTool are the environment of the test process as it
// started and the go command on its PATH, which staticProbe builds with:
// a test that set HOME or PATH (t.Setenv) before the first build must
// not send the build to another build cache or toolchain.
var (
	buildEnv []string
	goTool   string
)

// TestMain runs the tests from the module root, makes buildDir and lets
// the tests that call t.Parallel (they wait on sandboxes, daemons and
// deadlines) overlap 2 per CPU unless -parallel says otherwise
// (testtree.DefaultParallel). From the root, the paths the tests name
// (testdata/, docs/, README.md, scripts/, BUILD.buck, .ci/run) are the
// repository's, and the binary is built from the root's package main.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	moduleRoot, _ = os.Getwd()
	buildEnv = os.Environ()
	goTool = filepath.Join(build.Default.GOROOT, "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goTool = p
	}
	testtree.DefaultParallel(testtree.WaitingParallel())
	dir, err := os.MkdirTemp("", "aorta-probe-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// staticProbe builds the binary the way releases are built, on first use,
// for every test of the process (the end-to-end and the sandbox tests):
// one build per test process, whichever test asks first, the others
// (parallel ones too) waiting for it. Tests call e2eBinary (or
// buildStaticProbe), never go build. Nothing may write to it: it is
// shared; a test that needs to change it copies it.
var staticProbe = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(buildDir, "aorta-probe")
	cmd := exec.Command(goTool, "build", "-trimpath", "-o", bin, ".")
	cmd.Dir, cmd.Env = moduleRoot, append(slices.Clip(buildEnv), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("CGO_ENABLED=0 go build -trimpath -o %s .: %v\n%s", bin, err, out)
	}
	return bin, nil
})
