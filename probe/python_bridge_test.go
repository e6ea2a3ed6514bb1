package probe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// These tests run the embedded helper with the machine's real python3 over
// fake packages (torch, triton, fbgemm_gpu, aiter, torchrec) written into a
// temporary directory, and check the Go-derived blocks against the spec.

func needPython(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: the Python bridge tests need a real interpreter")
	}
	return p
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(body, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// wrapper writes an interpreter script that runs real python with
// PYTHONPATH=site, the way Buck link trees and .par launchers do.
func wrapper(t *testing.T, dir, name, python, site string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	writeFiles(t, dir, map[string]string{name: "#!/bin/sh\nPYTHONPATH='" + site + "' exec '" + python + "' \"$@\"\n"})
	return p
}

const fakeTorchInit = `import os, sys
print("torch prints at import")
sys.stderr.write("(null): No such file or directory\n")
os.write(1, b"raw fd 1 noise\n")
os.write(2, b"raw fd 2 noise\n")
__version__ = "2.9.1+rocm7.2.1.gitff65f5bc"
from . import version, cuda, backends, __config__
_lib = os.path.join(os.path.dirname(__file__), "lib", "libtorch_hip.so")
if os.path.exists(_lib):
    import ctypes
    ctypes.CDLL(_lib)
`

const fakeLibtorchHIP = `
namespace ck { void gemm_kernel() {} struct Tile { static void run(); }; void Tile::run() {} }
namespace ck_tile { struct FmhaFwdKernel { static void launch(); }; void FmhaFwdKernel::launch() {} }
namespace pytorch_flash { void mha_fwd_ck() {} void mha_fwd_aot() {} }
namespace aotriton { void v2() {} }
`

// fakeSiteA is a ROCm torch with every companion package.
func fakeSiteA(t *testing.T, site string) bool {
	writeFiles(t, site, map[string]string{
		"torch/__init__.py":          fakeTorchInit,
		"torch/version.py":           "git_version = 'ff65f5bc672795c5e5033900ea0a0c4f8566c8cf'\nhip = '7.2.53211'\ncuda = None\ndebug = False\n",
		"torch/cuda.py":              "def get_arch_list():\n    return ['gfx942']\n",
		"torch/__config__.py":        "def show():\n    return " + pyQuote(configShowFixture) + "\n",
		"torch/backends/__init__.py": "from . import cuda\n",
		"torch/backends/cuda.py": "def flash_sdp_enabled():\n    return 1\n" +
			"def mem_efficient_sdp_enabled():\n    return False\n" +
			"def math_sdp_enabled():\n    return True\n" +
			"def cudnn_sdp_enabled():\n    raise RuntimeError('no cudnn')\n",
		"torch/lib/libaotriton_v2.so.0.11.1":                   "aotriton bytes",
		"torch/lib/libaotriton_v2.so.0.9.0":                    "older",
		"torch/lib/aotriton.images/gfx942/x.hsaco":             "img",
		"torch-2.9.1+rocm7.2.1.gitff65f5bc.dist-info/METADATA": "Name: torch\nVersion: 2.9.1+rocm7.2.1.gitff65f5bc\n",
		"triton/__init__.py":                                   "print('triton noise')\n__version__ = '3.5.1+rocm7.2.1.gita272dfa8'\n",
		"fbgemm_gpu/__init__.py":                               "__version__ = '1.4.0'\nfrom . import version\n",
		"fbgemm_gpu/version.py":                                "git_version = 'deadbeef1234'\n",
		"aiter/__init__.py":                                    "x = 1\n",
		"amd_aiter-0.1.11.dev32+g9a469a608.dist-info/METADATA": "Name: amd_aiter\nVersion: 0.1.11.dev32+g9a469a608\n",
		"aiter_meta/__init__.py":                               "",
		"aiter_meta/hsa/gfx942/fmha_fwd.co":                    "co one",
		"aiter_meta/hsa/gfx942/sub/fmha_bwd.co":                "co two",
		"aiter_meta/hsa/gfx942/sub/readme.txt":                 "text",
		"aiter_meta/hsa/gfx942/.co":                            "dotfile",
		"aiter_meta/hsa/gfx950/a.co":                           "x",
		"aiter_meta/hsa/notes.txt":                             "not an arch",
		"torchrec/__init__.py":                                 "",
		"torchrec/version.py":                                  "__version__ = '1.4.0'\ngit_version = '0123abcdef0123abcdef0123abcdef0123abcdef'\n",
		"torchrec-1.4.0.dist-info/METADATA":                    "Name: torchrec\nVersion: 1.4.0\n",
		"torchrec-1.4.0.dist-info/RECORD":                      "torchrec/__init__.py,,\n",
	})
	if err := os.Symlink("libaotriton_v2.so.0.11.1", filepath.Join(site, "torch/lib/libaotriton_v2.so")); err != nil {
		t.Fatal(err)
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Log("g++ not on PATH: libtorch_hip.so not built, the symbol dump is not checked")
		return false
	}
	src := filepath.Join(t.TempDir(), "x.cpp")
	writeFiles(t, filepath.Dir(src), map[string]string{"x.cpp": fakeLibtorchHIP})
	out, err := exec.Command(gxx, "-shared", "-fPIC", "-o", filepath.Join(site, "torch/lib/libtorch_hip.so"), src).CombinedOutput()
	if err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	return true
}

// pyQuote is a Python string literal for s (the config text has no ”' ).
func pyQuote(s string) string {
	return "'''" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "\n", `\n`) + "'''"
}

func bridgeOptions(env map[string]string, path []string) Options {
	return Options{
		Root: "/", Now: time.Now, Path: path,
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
}

func reasonsWith(snap *schema.Snapshot, prefix string) []string {
	var out []string
	for _, r := range snap.PartialReasons {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return out
}

func wantSnapReasons(t *testing.T, snap *schema.Snapshot, prefix string, want ...string) {
	t.Helper()
	got := reasonsWith(snap, prefix)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("reasons %s*:\n got %q\nwant %q", prefix, got, want)
	}
}

func pythonVersionOf(t *testing.T, python string) string {
	out, err := exec.Command(python, "-c", "import platform; print(platform.python_version())").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func TestBridgeRealPython(t *testing.T) {
	python := needPython(t)
	dir := t.TempDir()
	siteA, siteB := filepath.Join(dir, "siteA"), filepath.Join(dir, "siteB")
	haveLib := fakeSiteA(t, siteA)
	writeFiles(t, siteB, map[string]string{
		"torch/__init__.py": "__version__ = '2.5.0+cpu'\nfrom . import version\n",
		"torch/version.py":  "git_version = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'\nhip = None\ncuda = None\ndebug = True\n",
	})
	// B is a venv interpreter and is "python3" on the probe's PATH; A is
	// named with --python. The document must describe A.
	venv := filepath.Join(dir, "venv")
	pythonB := filepath.Join(venv, "bin", "python3")
	if out, err := exec.Command(python, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Logf("python3 -m venv failed (%v: %s): interpreter B is the system python, venv detection not checked", err, out)
		pythonB, venv = python, ""
	}
	bin := filepath.Join(dir, "bin")
	pyB := wrapper(t, bin, "python3", pythonB, siteB)
	pyA := wrapper(t, filepath.Join(dir, "other"), "python-a", python, siteA)
	path := hermeticPath(t, bin)
	env := map[string]string{"PATH": strings.Join(path, ":"), "HOME": dir}

	t.Run("explicit --python wins over python3 on PATH", func(t *testing.T) {
		opt := bridgeOptions(env, path)
		opt.Python.Interpreter = pyA
		snap := Collect(context.Background(), opt)
		if d := os.Getenv("AORTA_TEST_DUMP"); d != "" {
			_ = os.WriteFile(d, pyjson.Encode(snap), 0o644)
		}
		checkSiteA(t, snap, python, siteA, haveLib)
	})
	t.Run("AORTA_PROBE_PYTHON", func(t *testing.T) {
		e := map[string]string{"PATH": env["PATH"], "AORTA_PROBE_PYTHON": pyA}
		snap := Collect(context.Background(), bridgeOptions(e, path))
		if v := ptrV(snap.PytorchVersion); v != "2.9.1+rocm7.2.1.gitff65f5bc" {
			t.Errorf("pytorch_version %s", v)
		}
	})
	t.Run("python3 on PATH: the venv with the CPU torch", func(t *testing.T) {
		snap := Collect(context.Background(), bridgeOptions(env, path))
		if v := ptrV(snap.PytorchVersion); v != "2.5.0+cpu" {
			t.Errorf("pytorch_version %s", v)
		}
		rc := snap.RuntimeContext
		if venv != "" && (rc.PythonEnv != "venv" || ptrV(rc.VenvPath) != venv) {
			t.Errorf("runtime_context %+v (venv_path %s), want venv at %s", rc, ptrV(rc.VenvPath), venv)
		}
		if snap.ComposableKernel.PytorchBundled.SymbolCount != nil || snap.AOTriton.BundledPresent {
			t.Errorf("CPU torch must not be dumped: %+v %+v", snap.ComposableKernel.PytorchBundled, snap.AOTriton)
		}
		if d, _ := snap.PytorchBuild.Debug.(bool); !d || ptrV(snap.PytorchBuild.HIPVersion) != "null" {
			t.Errorf("debug %v hip %s", snap.PytorchBuild.Debug, ptrV(snap.PytorchBuild.HIPVersion))
		}
		wantSnapReasons(t, snap, "triton", "triton.package_version: triton not importable")
		wantSnapReasons(t, snap, "python_version")
		_ = pyB
	})
}

func checkSiteA(t *testing.T, snap *schema.Snapshot, python, site string, haveLib bool) {
	t.Helper()
	if v := pythonVersionOf(t, python); snap.PythonVersion != v {
		t.Errorf("python_version %q, want %q", snap.PythonVersion, v)
	}
	if rc := snap.RuntimeContext; rc.PythonEnv != "system" || rc.VenvPath != nil {
		t.Errorf("runtime_context %+v", rc)
	}
	if v := ptrV(snap.PytorchVersion); v != "2.9.1+rocm7.2.1.gitff65f5bc" {
		t.Errorf("pytorch_version %s", v)
	}
	pb := snap.PytorchBuild
	if ptrV(pb.GitCommit) != "ff65f5bc672795c5e5033900ea0a0c4f8566c8cf" || ptrV(pb.HIPVersion) != "7.2.53211" || pb.CUDAVersion != nil || pb.Debug != false {
		t.Errorf("torch.version fields: %s %s %s %v", ptrV(pb.GitCommit), ptrV(pb.HIPVersion), ptrV(pb.CUDAVersion), pb.Debug)
	}
	if pb.InstallKind != "wheel" || pb.SourcePath != nil {
		t.Errorf("install %s %s", pb.InstallKind, ptrV(pb.SourcePath))
	}
	if got := strings.Join(pb.Flags.GPUArchList, ","); got != "gfx942" {
		t.Errorf("gpu_arch_list %q", got)
	}
	if v, _ := pb.Flags.BuildSettings.Get("USE_ROCM_KERNEL_ASSERT"); v != "OFF" || len(pb.Flags.BuildSettings) != 15 {
		t.Errorf("build_settings %v", pb.Flags.BuildSettings)
	}
	if ptrV(pb.Flags.CXXFlagsRaw) != fixtureCXXFlags || pb.Flags.CUDAFlagsRaw != nil || len(pb.Flags.CXXDefines) != 8 {
		t.Errorf("flags %+v", pb.Flags)
	}
	if v, _ := pb.BuildFlags.Get("BUILD_TYPE"); v != "Release" {
		t.Errorf("BUILD_TYPE %v", v)
	}
	if got := mapText(pb.BinaryIntrospection.CXXFlagsUseDefines, func(b bool) string { return pyjson.Str(b) }); got != "USE_ROCM_CK_SDPA=True;USE_ROCM_CK_GEMM=False;" {
		t.Errorf("cxx_flags_use_defines %s", got)
	}
	if got := mapText(pb.BinaryIntrospection.TorchLibBundled, func(b bool) string { return pyjson.Str(b) }); got != "libaotriton_v2.so=True;" {
		t.Errorf("torch_lib_bundled %s", got)
	}
	if pb.CMakeCache.Entries != nil || pb.NinjaHIPCC.Targets != nil {
		t.Errorf("wheel install has no build files: %+v %+v", pb.CMakeCache, pb.NinjaHIPCC)
	}
	sd := snap.PytorchSDPA.BackendsEnabled
	if ptrV2(sd.Flash) != "True" || ptrV2(sd.MemEfficient) != "False" || ptrV2(sd.Math) != "True" || sd.CuDNN != nil {
		t.Errorf("sdpa %s %s %s %s", ptrV2(sd.Flash), ptrV2(sd.MemEfficient), ptrV2(sd.Math), ptrV2(sd.CuDNN))
	}
	wantSnapReasons(t, snap, "pytorch_sdpa", "pytorch_sdpa.cudnn_sdp_enabled: torch.backends.cuda.cudnn_sdp_enabled() raised (RuntimeError)")
	wantSnapReasons(t, snap, "pytorch_build",
		"pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; resolve via github.com/pytorch/pytorch/tree/ff65f5bc672795c5e5033900ea0a0c4f8566c8cf/third_party/<name> (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)")
	wantSnapReasons(t, snap, "pytorch_version")
	wantSnapReasons(t, snap, "python_version")

	if ptrV(snap.Triton.PackageVersion) != "3.5.1+rocm7.2.1.gita272dfa8" || ptrV(snap.Triton.Commit) != "a272dfa8" {
		t.Errorf("triton %+v", snap.Triton)
	}
	wantSnapReasons(t, snap, "triton")
	fb := snap.FBGEMM
	if ptrV(fb.PackageVersion) != "1.4.0" || ptrV(fb.Commit) != "deadbeef1234" || ptrV2(fb.PytorchUseFBGEMM) != "True" || ptrV2(fb.PytorchUseFBGEMMGenAI) != "False" {
		t.Errorf("fbgemm %s %s %s %s", ptrV(fb.PackageVersion), ptrV(fb.Commit), ptrV2(fb.PytorchUseFBGEMM), ptrV2(fb.PytorchUseFBGEMMGenAI))
	}
	tr := snap.TorchRec
	sha := "0123abcdef0123abcdef0123abcdef0123abcdef"
	if ptrV(tr.PackageVersion) != "1.4.0" || ptrV(tr.Commit) != sha || ptrV(tr.SourceVersion) != "1.4.0" || ptrV(tr.SourceCommit) != sha || ptrV(tr.DistributionVersion) != "1.4.0" {
		t.Errorf("torchrec %+v", tr)
	}
	wantSnapReasons(t, snap, "torchrec")
	ai := snap.Aiter
	if ptrV(ai.PackageVersion) != "0.1.11.dev32+g9a469a608" || ptrV(ai.PackageDistName) != "amd_aiter" || ptrV(ai.Commit) != "9a469a608" {
		t.Errorf("aiter %s %s %s", ptrV(ai.PackageVersion), ptrV(ai.PackageDistName), ptrV(ai.Commit))
	}
	hsa := site + "/aiter_meta/hsa"
	if real, err := filepath.EvalSymlinks(hsa); err == nil {
		hsa = real
	}
	if len(ai.HSATree) != 1 || ai.HSATree[0].Key != hsa {
		t.Fatalf("hsa_tree roots %v, want %s", ai.HSATree.Keys(), hsa)
	}
	archs := ai.HSATree[0].Value
	if strings.Join(archs.Keys(), ",") != "gfx942,gfx950" {
		t.Errorf("archs %v", archs.Keys())
	}
	g, _ := archs.Get("gfx942")
	if *g.FileCount != 4 || *g.COCount != 2 || g.CombinedSHA256 == nil {
		t.Errorf("gfx942 %d files %d co", *g.FileCount, *g.COCount)
	}
	if want := hsaCombined(t, site+"/aiter_meta/hsa/gfx942"); ptrV(g.CombinedSHA256) != want {
		t.Errorf("combined %s, want %s (python)", ptrV(g.CombinedSHA256), want)
	}
	wantSnapReasons(t, snap, "aiter")

	ao := snap.AOTriton
	if !ao.BundledPresent || ptrV(ao.BundledVersion) != "0.11.1" || !ao.BundledImagesDirPresent || ptrV(ao.BundledLibHash) != sha256Hex("aotriton bytes") {
		t.Errorf("aotriton %+v %s %s", ao, ptrV(ao.BundledVersion), ptrV(ao.BundledLibHash))
	}
	wantSnapReasons(t, snap, "aotriton")
	ck := snap.ComposableKernel
	if ptrV2(ck.PytorchUseCKSDPA) != "True" || ptrV2(ck.PytorchUseCKGemm) != "False" {
		t.Errorf("ck flags %s %s", ptrV2(ck.PytorchUseCKSDPA), ptrV2(ck.PytorchUseCKGemm))
	}
	counts := pb.BinaryIntrospection.LibtorchHIPSymbolCounts
	if !haveLib {
		return
	}
	if _, err := exec.LookPath("nm"); err != nil {
		t.Log("nm not on PATH: symbol counts not checked")
		return
	}
	if ck.PytorchBundled.SymbolCount == nil || *ck.PytorchBundled.SymbolCount != 2 || !ck.PytorchBundled.Present {
		t.Errorf("pytorch_bundled %+v", ck.PytorchBundled)
	}
	got := mapText(counts, func(p *int) string {
		if p == nil {
			return "null"
		}
		return strconv.Itoa(*p)
	})
	want := "pytorch_flash::=2;mha_fwd_aot=1;mha_fwd_ck=1;_efficient_attention=0;aotriton::=1;ck_tile::FmhaFwd=1;ck_tile::FmhaBwd=0;ck_tile::BlockFmha=0;ck_tile::TileFmha=0;group_gemm_ck=0;aiter::=0;"
	if got != want {
		t.Errorf("symbol counts\n got %s\nwant %s", got, want)
	}
	wantSnapReasons(t, snap, "composable_kernel.pytorch")
}

func ptrV2(b *bool) string {
	if b == nil {
		return "null"
	}
	return pyjson.Str(*b)
}

// hsaCombined computes an arch's combined_sha256 with Python's hashlib and
// pathlib, independently of the Go code.
func hsaCombined(t *testing.T, dir string) string {
	t.Helper()
	script := `import hashlib, pathlib, sys
d = pathlib.Path(sys.argv[1])
pairs = sorted((p.relative_to(d).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest()) for p in d.rglob("*") if p.is_file())
h = hashlib.sha256()
for r, x in pairs:
    h.update(r.encode() + b"\0" + x.encode() + b"\n")
print(h.hexdigest())
`
	out, err := exec.Command("python3", "-c", script, dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestHelperStdinSeekable: the helper reads a seekable stdin with a coding
// line (pythonHelperSeekable), and an interpreter that gets it through a
// pipe (a wrapper forwarding its stdin, as `docker exec -i` does) is run
// again with the bootstrap alone: the document is the same either way
// (the second run is the bootstrap alone through a pipe, as before).
func TestHelperStdinSeekable(t *testing.T) {
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	fakeSiteA(t, site)
	runs := filepath.Join(dir, "runs")
	writeFiles(t, dir, map[string]string{
		// fails unless its stdin is a regular file
		"file-python": "#!/bin/sh\n[ -f /dev/stdin ] || exit 42\nPYTHONPATH='" + site + "' exec '" + python + "' \"$@\"\n",
		"pipe-python": "#!/bin/sh\necho run >> '" + runs + "'\ncat | PYTHONPATH='" + site + "' exec '" + python + "' \"$@\"\n",
	})
	path := hermeticPath(t)
	env := map[string]string{"PATH": strings.Join(path, ":"), "HOME": dir}
	doc := func(interpreter string) string {
		t.Helper()
		opt := bridgeOptions(env, path)
		opt.Python.Interpreter = filepath.Join(dir, interpreter)
		snap := Collect(context.Background(), opt)
		if snap.PythonVersion == "" {
			t.Errorf("%s: python_version empty: %q", interpreter, reasonsWith(snap, "python_version"))
		}
		snap.CapturedAt, snap.Provenance = "", nil
		return string(pyjson.Encode(snap))
	}
	file, pipe := doc("file-python"), doc("pipe-python")
	if file != pipe {
		t.Errorf("seekable stdin and pipe give different documents:\n%s\n%s", file, pipe)
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 2 {
		t.Errorf("the pipe wrapper ran %d times, want 2 (coding line refused, then the bootstrap)", strings.Count(string(b), "run"))
	}
}
