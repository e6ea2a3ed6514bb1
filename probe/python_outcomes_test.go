package probe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aorta-probe/internal/machine"
	"aorta-probe/schema"
)

// The ways the bridge can go wrong: each is a documented outcome with one
// python_version reason, within a bounded time, leaving the rest of the
// document intact.

// allTorchSites are the reason prefixes of a torch that raises on import
// (docs/python.md#3-outcomes), in document order.
var allTorchSites = []string{
	"composable_kernel.pytorch_bundled: torch import raised (%s)",
	"composable_kernel.pytorch_use_ck_sdpa: torch import raised (%s)",
	"fbgemm.pytorch_use_fbgemm: torch import raised (%s)",
	"aotriton: torch import raised (%s)",
	"pytorch_version: torch import raised (%s)",
	"pytorch_build: torch import raised (%s)",
	"pytorch_build.submodule_commits: torch import failed -- submodule SHAs unrecoverable",
	"pytorch_build.flags: torch import raised (%s)",
	"pytorch_sdpa: torch import raised (%s)",
}

func torchReasons(snap *schema.Snapshot) []string {
	var out []string
	for _, r := range snap.PartialReasons {
		if strings.Contains(r, "torch import") {
			out = append(out, r)
		}
	}
	return out
}

func wantTorchReasons(t *testing.T, snap *schema.Snapshot, exc string) {
	t.Helper()
	var want []string
	for _, w := range allTorchSites {
		want = append(want, strings.ReplaceAll(w, "%s", exc))
	}
	if got := torchReasons(snap); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("torch reasons\n got %q\nwant %q", got, want)
	}
}

func TestBridgeNoInterpreter(t *testing.T) {
	snap := Collect(context.Background(), bridgeOptions(map[string]string{}, []string{}))
	if snap.PythonVersion != "" || snap.PytorchVersion != nil {
		t.Errorf("python_version %q pytorch_version %v", snap.PythonVersion, snap.PytorchVersion)
	}
	wantSnapReasons(t, snap, "python_version", "python_version: no Python interpreter found (no --python, AORTA_PROBE_PYTHON unset, no python3 or python on PATH)")
	wantSnapReasons(t, snap, "pytorch_version", "pytorch_version: torch not importable")
	wantSnapReasons(t, snap, "triton", "triton.package_version: triton not importable")
	if rc := snap.RuntimeContext; rc.PythonEnv != "system" {
		t.Errorf("runtime_context %+v", rc)
	}
	// The env-only fallback: an activated venv's $VIRTUAL_ENV.
	snap = Collect(context.Background(), bridgeOptions(map[string]string{"VIRTUAL_ENV": "/venvs/x"}, []string{}))
	if rc := snap.RuntimeContext; rc.PythonEnv != "venv" || ptrV(rc.VenvPath) != "/venvs/x" {
		t.Errorf("env-only fallback %+v", rc)
	}
}

func TestBridgeDisabled(t *testing.T) {
	python := needPython(t)
	opt := bridgeOptions(map[string]string{}, []string{filepath.Dir(python)})
	opt.Python.Disabled = true
	snap := Collect(context.Background(), opt)
	wantSnapReasons(t, snap, "python_version", "python_version: Python bridge disabled (--no-python)")
	for _, c := range snap.Provenance.Commands {
		if strings.Contains(c.Argv[0], "python") {
			t.Errorf("--no-python ran %v", c.Argv)
		}
	}
}

func TestBridgeMissingInterpreter(t *testing.T) {
	opt := bridgeOptions(map[string]string{}, []string{})
	opt.Python.Interpreter = "/nonexistent/python3"
	snap := Collect(context.Background(), opt)
	wantSnapReasons(t, snap, "python_version", "python_version: interpreter /nonexistent/python3 could not be started ([Errno 2] No such file or directory: '/nonexistent/python3')")
	opt.Python.Interpreter = "python9"
	snap = Collect(context.Background(), opt)
	wantSnapReasons(t, snap, "python_version", "python_version: interpreter python9 could not be started ([Errno 2] No such file or directory: 'python9')")
}

func TestBridgeBrokenInterpreter(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"python3": "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho 'SyntaxError: invalid syntax' >&2\nexit 3\n"})
	snap := Collect(context.Background(), bridgeOptions(map[string]string{}, []string{dir}))
	wantSnapReasons(t, snap, "python_version", "python_version: interpreter python3 exited 3 before the helper reported (SyntaxError: invalid syntax)")
	wantSnapReasons(t, snap, "pytorch_version", "pytorch_version: torch not importable")
	if snap.PythonVersion != "" {
		t.Errorf("python_version %q", snap.PythonVersion)
	}
	// An interpreter that exits 0 with nothing useful on stdout.
	writeFiles(t, dir, map[string]string{"python": "#!/bin/sh\necho hello\n"})
	opt := bridgeOptions(map[string]string{}, []string{dir})
	opt.Python.Interpreter = "python"
	snap = Collect(context.Background(), opt)
	wantSnapReasons(t, snap, "python_version", "python_version: interpreter python printed no complete helper document (no output on stderr)")
}

func TestBridgeTorchRaises(t *testing.T) {
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	writeFiles(t, site, map[string]string{
		"torch/__init__.py":  "print('about to fail')\nraise RuntimeError('HIP error: no ROCm-capable device')\n",
		"triton/__init__.py": "import sys\nsys.exit(4)\n",
	})
	py := wrapper(t, dir, "py", python, site)
	opt := bridgeOptions(map[string]string{}, hermeticPath(t))
	opt.Python.Interpreter = py
	snap := Collect(context.Background(), opt)
	wantTorchReasons(t, snap, "RuntimeError")
	wantSnapReasons(t, snap, "triton", "triton.package_version: triton import raised (SystemExit)")
	wantSnapReasons(t, snap, "python_version")
	if snap.PythonVersion == "" || snap.PytorchBuild.InstallKind != "unknown" {
		t.Errorf("python_version %q install_kind %s", snap.PythonVersion, snap.PytorchBuild.InstallKind)
	}
}

func TestBridgeHangingTorch(t *testing.T) {
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	// The fake torch marks that the helper is importing it, then hangs.
	importing := filepath.Join(dir, "importing")
	writeFiles(t, site, map[string]string{"torch/__init__.py": fmt.Sprintf("open(%q, 'w').close()\nimport time\ntime.sleep(120)\n", importing)})
	py := wrapper(t, dir, "py", python, site)
	opt := bridgeOptions(map[string]string{}, hermeticPath(t))
	opt.Python.Interpreter = py
	opt.Python.Timeout = 3 * time.Second
	// The helper's timeout fires when the fake torch is being imported,
	// never before: a slow interpreter start on a loaded machine must not
	// read as "while starting". The runner checks the timeout the bridge
	// asks for and kills on that event instead of the clock.
	opt.Runner = runnerFunc(func(ctx context.Context, c Command) Result {
		if c.Argv[0] != py {
			return ExecRunner{}.Run(ctx, c)
		}
		if c.Timeout != opt.Python.Timeout {
			t.Errorf("the helper runs with timeout %v, want %v", c.Timeout, opt.Python.Timeout)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			for ctx.Err() == nil {
				if _, err := os.Stat(importing); err == nil {
					cancel()
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		c.Timeout = patience
		return ExecRunner{}.Run(ctx, c)
	})
	snap := Collect(context.Background(), opt)
	wantSnapReasons(t, snap, "python_version", "python_version: interpreter "+py+" killed after 3s while importing torch (call site rocm.version)")
	wantTorchReasons(t, snap, "TimeoutExpired")
	wantSnapReasons(t, snap, "triton", "triton.package_version: triton import raised (TimeoutExpired)")
	if v := pythonVersionOf(t, python); snap.PythonVersion != v {
		t.Errorf("python_version %q: the first report must survive the kill (want %q)", snap.PythonVersion, v)
	}
	var timedOut bool
	for _, c := range snap.Provenance.Commands {
		timedOut = timedOut || (c.Argv[0] == py && c.TimedOut)
	}
	if !timedOut {
		t.Errorf("provenance does not record the killed helper")
	}
}

// TestBridgeSourceTree is an AORTA_PYTORCH_SRC source tree next to a wheel
// torch: install kind, submodule SHAs by git, CMakeCache and build.ninja.
func TestBridgeSourceTree(t *testing.T) {
	python := needPython(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH: submodule SHAs need it")
	}
	dir := t.TempDir()
	site, src := filepath.Join(dir, "site"), filepath.Join(dir, "pytorch")
	writeFiles(t, site, map[string]string{
		"torch/__init__.py": "__version__ = '2.10.0a0+git1234567'\nfrom . import version\n",
		"torch/version.py":  "git_version = None\nhip = '7.1'\ncuda = None\ndebug = False\n",
	})
	writeFiles(t, src, map[string]string{
		"third_party/aiter/README": "not a git checkout",
		"build/CMakeCache.txt":     "// header\n# c\nUSE_FLASH_ATTENTION:BOOL=ON\nUSE_ROCM_CK_SDPA:BOOL=ON\nBUILD_TYPE:STRING=Release\nFLASH_NAMESPACE:STRING=pytorch_flash\nBORING_VAR_NOT_ALLOWLISTED:STRING=keep-out\nUSE_NUMA:BOOL=OFF\n",
		"build/build.ninja":        "rule HIP_COMPILER__torch_hip_unscanned\n",
		"build/caffe2/aten/src/ATen/CMakeFiles/ck_sdpa.dir/x.hip.o.cmake": "set(HIP_HIPCC_FLAGS -std=c++17;-DA=1 -DB=2 -DC=3 -DUSE_ROCM_CK_SDPA;-Wall)\n",
		"build/caffe2/CMakeFiles/gloo_hip.dir/y.hip.o.cmake":              "set(HIP_HIPCC_FLAGS -DGLOO)\n",
	})
	ck := filepath.Join(src, "third_party/composable_kernel")
	for _, argv := range [][]string{{"init", "-q", ck}, {"-C", ck, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command(git, argv...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", argv, err, out)
		}
	}
	head, _ := exec.Command(git, "-C", ck, "rev-parse", "HEAD").Output()
	py := wrapper(t, dir, "py", python, site)
	opt := bridgeOptions(map[string]string{"AORTA_PYTORCH_SRC": src, "HOME": dir}, hermeticPath(t))
	opt.Python.Interpreter = py
	snap := Collect(context.Background(), opt)
	pb := snap.PytorchBuild
	realSrc, _ := filepath.EvalSymlinks(src)
	if pb.InstallKind != "source" || ptrV(pb.SourcePath) != realSrc {
		t.Errorf("install %s %s", pb.InstallKind, ptrV(pb.SourcePath))
	}
	if ptrV(pb.SubmoduleCommits.ComposableKernel) != strings.TrimSpace(string(head)) || pb.SubmoduleCommits.Aiter != nil || ptrV(pb.SubmoduleCommits.Source) != "git" {
		t.Errorf("submodules %+v", pb.SubmoduleCommits)
	}
	wantSnapReasons(t, snap, "pytorch_build",
		"pytorch_build.git_commit: torch.version.git_version is null",
		"pytorch_build.submodule_commits: source tree at "+realSrc+" has no readable git checkout for: aiter, fbgemm",
		"pytorch_build.flags: torch.__config__.show unavailable",
		"pytorch_build.binary_introspection.torch_lib_bundled: "+site+"/torch/lib scan failed (FileNotFoundError)")
	wantSnapReasons(t, snap, "composable_kernel.pytorch",
		"composable_kernel.pytorch_bundled: "+site+"/torch/lib/libtorch_hip.so not found (torch.version.hip claims HIP but the runtime lib is missing)",
		"composable_kernel.pytorch_use_ck_sdpa: torch.__config__.show unavailable")
	if got := strings.Join(pb.CMakeCache.Entries.Keys(), ","); got != "BUILD_TYPE,FLASH_NAMESPACE,USE_FLASH_ATTENTION,USE_NUMA,USE_ROCM_CK_SDPA" || ptrV(pb.CMakeCache.SourceFile) != realSrc+"/build/CMakeCache.txt" {
		t.Errorf("cmake %v %s", pb.CMakeCache.Entries.Keys(), ptrV(pb.CMakeCache.SourceFile))
	}
	n := pb.NinjaHIPCC
	if ptrV(n.Parser) != "legacy_findhip_per_source" || n.LegacyScriptsScanned == nil || *n.LegacyScriptsScanned != 1 {
		t.Errorf("ninja %s %v", ptrV(n.Parser), n.LegacyScriptsScanned)
	}
	if got := ninjaTargetText(n.Targets); got != "ck_sdpa{D:A=1;B=2;C=3;USE_ROCM_CK_SDPA=null; +USE_ROCM_CK_SDPA archs=}" {
		t.Errorf("targets %s", got)
	}
}

// TestBridgeROCmImportRoots is step 3 of root discovery (docs/rocm-roots.md):
// with no ROCM_PATH and no usable /opt/rocm, the wheel roots come from
// find_spec("_rocm_sdk_core") in the workload interpreter.
func TestBridgeROCmImportRoots(t *testing.T) {
	python := needPython(t)
	if machine.NewFS("/", "/", false).IsDir("/opt/rocm") {
		t.Skip("/opt/rocm exists on this machine: step 2 answers before the import system")
	}
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	writeFiles(t, site, map[string]string{
		"_rocm_sdk_core/__init__.py":      "",
		"_rocm_sdk_libraries/__init__.py": "",
	})
	opt := bridgeOptions(map[string]string{}, hermeticPath(t))
	opt.Python.Interpreter = wrapper(t, dir, "py", python, site)
	snap := Collect(context.Background(), opt)
	r := snap.ROCm
	if r.RootSource != "import:_rocm_sdk_core" || r.Root != site+"/_rocm_sdk_core" || r.LibRoot != site+"/_rocm_sdk_libraries" || r.Layout != "wheel" {
		t.Errorf("rocm roots %s %s %s %s", r.RootSource, r.Root, r.LibRoot, r.Layout)
	}
}

func TestBridgeSlowFailingTorch(t *testing.T) {
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	attempts := filepath.Join(dir, "attempts")
	writeFiles(t, site, map[string]string{"torch/__init__.py": fmt.Sprintf("open(%q, 'a').write('import\\n')\nimport time\ntime.sleep(1.5)\nraise OSError('hipErrorNoDevice')\n", attempts)})
	opt := bridgeOptions(map[string]string{}, hermeticPath(t))
	opt.Python.Interpreter = wrapper(t, dir, "py", python, site)
	opt.Python.Timeout = 30 * time.Second
	snap := Collect(context.Background(), opt)
	// Ten sites at 1.5 s each would be 15 s; the first slow failure is
	// reused, so the helper imports torch once and every site reports it.
	wantSnapReasons(t, snap, "python_version")
	wantTorchReasons(t, snap, "OSError")
	if b, err := os.ReadFile(attempts); err != nil || string(b) != "import\n" {
		t.Errorf("torch import attempts: %q (%v), want one", b, err)
	}
}

// TestInstallKinds covers pytorch_build.install_kind's editable and in-tree
// source detections with the real interpreter.
func TestInstallKinds(t *testing.T) {
	python := needPython(t)
	torch := map[string]string{"torch/__init__.py": "__version__ = '2.10.0a0+gitabcdef0'\n"}
	for _, tc := range []struct {
		name  string
		setup func(dir, site string)
		kind  string
		src   string // relative to dir
	}{
		{"editable via direct_url.json", func(dir, site string) {
			writeFiles(t, dir, map[string]string{"src/third_party/x": ""})
			writeFiles(t, site, map[string]string{"torch-2.10.0a0+gitabcdef0.dist-info/direct_url.json": `{"url": "file://` + dir + `/src", "dir_info": {"editable": true}}`})
		}, "editable", "src"},
		{"editable flag false", func(dir, site string) {
			writeFiles(t, dir, map[string]string{"src/third_party/x": ""})
			writeFiles(t, site, map[string]string{"torch-2.10.0a0+gitabcdef0.dist-info/direct_url.json": `{"url": "file://` + dir + `/src", "dir_info": {"editable": false}}`})
		}, "wheel", ""},
		{"broken direct_url.json", func(dir, site string) {
			writeFiles(t, site, map[string]string{"torch-2.10.0a0+gitabcdef0.dist-info/direct_url.json": `[1, 2`})
		}, "wheel", ""},
		{"checkout around torch", func(dir, site string) {
			writeFiles(t, site, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "third_party/x": ""})
		}, "source", "site"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			site := filepath.Join(dir, "site")
			writeFiles(t, site, torch)
			tc.setup(dir, site)
			opt := bridgeOptions(map[string]string{}, []string{})
			opt.Python.Interpreter = wrapper(t, dir, "py", python, site)
			pb := Collect(context.Background(), opt).PytorchBuild
			want := ""
			if tc.src != "" {
				want = filepath.Join(dir, tc.src)
			}
			if pb.InstallKind != tc.kind || strings.TrimSuffix(ptrV(pb.SourcePath), "null") != want {
				t.Errorf("install %s %s, want %s %s", pb.InstallKind, ptrV(pb.SourcePath), tc.kind, want)
			}
		})
	}
}

// TestBridgeLoops: an interpreter that is this binary (by path, symbolic
// or hard link) is never run; a probe inside another probe's helper run
// (the marker set) runs no interpreter; the helper run carries the marker;
// a copy of the probe answering with its own document is named as such.
func TestBridgeLoops(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	self := filepath.Join(dir, "self")
	writeFiles(t, dir, map[string]string{"self": "#!/bin/sh\ntouch " + ran + "\nexit 99\n"})
	if err := os.Symlink(self, filepath.Join(dir, "symlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, filepath.Join(dir, "hardlink")); err != nil {
		t.Fatal(err)
	}
	const itself = "it is this aorta-probe binary, which would run itself"
	for _, tc := range []struct{ name, flag, env string }{
		{"--python self", self, ""},
		{"--python symlink", filepath.Join(dir, "symlink"), ""},
		{"--python hardlink", filepath.Join(dir, "hardlink"), ""},
		{"AORTA_PROBE_PYTHON symlink", "", filepath.Join(dir, "symlink")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			if tc.env != "" {
				env["AORTA_PROBE_PYTHON"] = tc.env
			}
			opt := bridgeOptions(env, []string{})
			opt.Python.Interpreter, opt.Python.Self = tc.flag, self
			snap := Collect(context.Background(), opt)
			wantSnapReasons(t, snap, "python_version", "python_version: interpreter "+tc.flag+tc.env+" not run: "+itself)
			wantSnapReasons(t, snap, "pytorch_version", "pytorch_version: torch not importable")
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("the interpreter that is this binary was run")
			}
		})
	}

	t.Run("marker set", func(t *testing.T) {
		opt := bridgeOptions(map[string]string{HelperMarker: "4242"}, []string{})
		opt.Python.Interpreter = filepath.Join(dir, "other")
		writeFiles(t, dir, map[string]string{"other": "#!/bin/sh\ntouch " + ran + "\nexit 99\n"})
		snap := Collect(context.Background(), opt)
		wantSnapReasons(t, snap, "python_version", "python_version: interpreter "+opt.Python.Interpreter+" not run: this probe runs inside the Python helper run of another aorta-probe (AORTA_PROBE_HELPER_OF is set), where running an interpreter could loop")
		if _, err := os.Stat(ran); err == nil {
			t.Fatal("an interpreter ran although the marker was set")
		}
	})

	t.Run("the helper run carries the marker", func(t *testing.T) {
		writeFiles(t, dir, map[string]string{"python3": "#!/bin/sh\necho \"marker=$" + HelperMarker + "\" >&2\nexit 3\n"})
		snap := Collect(context.Background(), bridgeOptions(map[string]string{}, []string{dir}))
		wantSnapReasons(t, snap, "python_version", fmt.Sprintf("python_version: interpreter python3 exited 3 before the helper reported (marker=%d)", os.Getpid()))
	})

	t.Run("a copy answers with its document", func(t *testing.T) {
		writeFiles(t, dir, map[string]string{"python3": "#!/bin/sh\nprintf '{\\n  \"schema_version\": \"1.16\",\\n  \"partial\": true\\n}\\n'\n"})
		snap := Collect(context.Background(), bridgeOptions(map[string]string{}, []string{dir}))
		wantSnapReasons(t, snap, "python_version", "python_version: interpreter python3 printed no complete helper document (an aorta-probe document: the interpreter runs a copy of this probe, which ran no interpreter itself)")
	})
}

// TestImportOutcome: the one helper every import site goes through says
// whether the module was obtained and appends the site's reason otherwise.
func TestImportOutcome(t *testing.T) {
	for _, tc := range []struct {
		o       importOutcome
		missing string
		ok      bool
		reason  string
	}{
		{importOK, "", true, ""},
		{importMissing, "", false, ""},
		{importMissing, "torch not importable", false, "P: torch not importable"},
		{"RuntimeError", "torch not importable", false, "P: torch import raised (RuntimeError)"},
		{"TimeoutExpired", "", false, "P: torch import raised (TimeoutExpired)"},
		{"", "", false, "P: torch import raised ()"},
	} {
		s := &state{}
		if got := tc.o.imported(s, "P", "torch", tc.missing); got != tc.ok || strings.Join(s.reasons, "|") != tc.reason {
			t.Errorf("%q: imported %v reasons %q, want %v %q", tc.o, got, s.reasons, tc.ok, tc.reason)
		}
	}
}
