package main

import (
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// buildDir holds what the tests of this package build once per test
// process: TestMain creates it and removes it at the end.
var buildDir string

func TestMain(m *testing.M) {
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
// for every test of the process (the end-to-end and the sandbox tests).
// Nothing may write to it: it is shared.
var staticProbe = sync.OnceValues(func() (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	bin := filepath.Join(buildDir, "aorta-probe")
	cmd := exec.Command(goTool, "build", "-trimpath", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("CGO_ENABLED=0 go build -trimpath -o %s .: %v\n%s", bin, err, out)
	}
	return bin, nil
})
