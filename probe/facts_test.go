package probe

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// Root discovery needs the interpreter only when nothing else answers, and
// then only the probes that need the roots wait for it: with a python3 that
// hangs and no ROCm anywhere, an interrupted collection still captures the
// blocks that need neither, and the blocks that relied on the killed
// interpreter are not captured (what they would say is a guess) — with
// runtime_context.type still the real one.
func TestHangingInterpreterDelaysOnlyROCmBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	testtree.WriteFile(filepath.Join(dir, "bin", "python3"), []byte("#!/bin/sh\nexec sleep 60\n"), 0o755)
	os.WriteFile(filepath.Join(dir, ".dockerenv"), nil, 0o644)
	opt := Options{
		Seams: machine.Seams{
			Root: dir, Path: []string{filepath.Join(dir, "bin")},
			Env:   func(string) (string, bool) { return "", false },
			Uname: func() (machine.Uname, error) { return machine.Uname{Release: "r", Version: "v", Machine: "m"}, nil },
		},
		Now: fixedNow,
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	snap := Collect(ctx, opt)
	outcome := map[string]string{}
	for _, p := range snap.Provenance.Probes {
		outcome[p.Name] = p.Outcome
	}
	for _, name := range []string{"host", "env_vars", "probe_namespace", "container_detected", "docker"} {
		if o := outcome[name]; o != "ok" && o != "partial" {
			t.Errorf("%s: outcome %q, want it captured while the interpreter hangs", name, o)
		}
	}
	for _, name := range []string{"runtime_context", "rocm", "pytorch_version", "triton"} {
		if o := outcome[name]; o != "deadline" {
			t.Errorf("%s: outcome %q, want not captured", name, o)
		}
	}
	if snap.RuntimeContext.Type != "docker" || snap.Docker == nil {
		t.Errorf("runtime_context %+v, docker %+v: the type must stay the real one", snap.RuntimeContext, snap.Docker)
	}
	if snap.ROCm.Root != "/opt/rocm" || snap.ROCm.RootSource != "none" {
		t.Errorf("not-captured rocm roots %+v", snap.ROCm)
	}
}

// TestAMDGPUDriverDoesNotWaitForPython: with no ROCm root on the
// filesystem, root discovery asks the interpreter, which here waits until
// amdgpu_driver's modinfo has run. Had amdgpu_driver waited for rocm (and
// so for the roots and the interpreter), modinfo would run only after the
// interpreter was killed at its timeout.
func TestAMDGPUDriverDoesNotWaitForPython(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	release := filepath.Join(t.TempDir(), "release")
	testtree.Files(t, root, map[string]string{
		"sys/module/amdgpu/version": "6.16.13\n",
		"bin/python3":               "#!/bin/sh\nwhile [ ! -e '" + release + "' ]; do sleep 0.02; done\nexit 3\n",
		"bin/modinfo":               "#!/bin/sh\n[ \"$1\" = amdgpu ] || exit 99\ntouch '" + release + "'\necho 'version: 6.16.13'\n",
	})
	for _, n := range []string{"python3", "modinfo"} {
		os.Chmod(filepath.Join(root, "bin", n), 0o755)
	}
	opt := Options{Seams: machine.Seams{Root: root, Cwd: "/", Path: []string{filepath.Join(root, "bin")}, Env: func(string) (string, bool) { return "", false }}, Now: time.Now}
	opt.Python.Timeout = 20 * time.Second
	snap := Collect(context.Background(), opt)
	for _, c := range snap.Provenance.Commands {
		if filepath.Base(c.Argv[0]) == "python3" && c.TimedOut {
			t.Errorf("the interpreter was killed at its timeout: modinfo waited for it")
		}
	}
	if v := derefOr(snap.AMDGPUDriver.KmdVersion, "<nil>"); v != "6.16.13" {
		t.Errorf("amdgpu_driver.kmd_version %s", v)
	}
	if v := derefOr(snap.AMDGPUDriver.ModuleVersion, "<nil>"); v != "6.16.13" {
		t.Errorf("amdgpu_driver.module_version %s", v)
	}
}

// factsState is a probe's state whose Python helper answered f.
func factsState(f *pyFacts) *state {
	c := newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})
	c.python = func() *pyFacts { return f }
	return &state{collector: c}
}
