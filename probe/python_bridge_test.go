package probe

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
	"aorta-probe/internal/testtree"
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

// wrapper writes an interpreter script that runs real python with
// PYTHONPATH=site, the way Buck link trees and .par launchers do.
func wrapper(t *testing.T, dir, name, python, site string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	testtree.Files(t, dir, map[string]string{name: "#!/bin/sh\nPYTHONPATH='" + site + "' exec '" + python + "' \"$@\"\n"})
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
	testtree.Files(t, site, map[string]string{
		"torch/__init__.py":          fakeTorchInit,
		"torch/version.py":           "git_version = 'ff65f5bc672795c5e5033900ea0a0c4f8566c8cf'\nhip = '7.2.53211'\ncuda = None\ndebug = False\n",
		"torch/cuda.py":              "def get_arch_list():\n    return ['gfx942']\n",
		"torch/__config__.py":        "def show():\n    return " + pyQuote(testdoc.TorchConfigShow(t)) + "\n",
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
	testtree.Files(t, filepath.Dir(src), map[string]string{"x.cpp": fakeLibtorchHIP})
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
		Seams: machine.Seams{
			Root: "/", Path: path,
			Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		},
		Now: time.Now,
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
	t.Parallel()
	python := needPython(t)
	dir := t.TempDir()
	siteA, siteB := filepath.Join(dir, "siteA"), filepath.Join(dir, "siteB")
	haveLib := fakeSiteA(t, siteA)
	testtree.Files(t, siteB, map[string]string{
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
		t.Parallel()
		opt := bridgeOptions(env, path)
		opt.Python.Interpreter = pyA
		snap := Collect(context.Background(), opt)
		if d := os.Getenv("AORTA_TEST_DUMP"); d != "" {
			_ = os.WriteFile(d, pyjson.Encode(snap), 0o644)
		}
		checkSiteA(t, snap, python, siteA, haveLib)
	})
	t.Run("AORTA_PROBE_PYTHON", func(t *testing.T) {
		t.Parallel()
		e := map[string]string{"PATH": env["PATH"], "AORTA_PROBE_PYTHON": pyA}
		snap := Collect(context.Background(), bridgeOptions(e, path))
		if v := golden.OrNull(snap.PytorchVersion); v != "2.9.1+rocm7.2.1.gitff65f5bc" {
			t.Errorf("pytorch_version %s", v)
		}
	})
	t.Run("python3 on PATH: the venv with the CPU torch", func(t *testing.T) {
		t.Parallel()
		snap := Collect(context.Background(), bridgeOptions(env, path))
		if v := golden.OrNull(snap.PytorchVersion); v != "2.5.0+cpu" {
			t.Errorf("pytorch_version %s", v)
		}
		rc := snap.RuntimeContext
		if venv != "" && (rc.PythonEnv != "venv" || golden.OrNull(rc.VenvPath) != venv) {
			t.Errorf("runtime_context %+v (venv_path %s), want venv at %s", rc, golden.OrNull(rc.VenvPath), venv)
		}
		if snap.ComposableKernel.PytorchBundled.SymbolCount != nil || snap.AOTriton.BundledPresent {
			t.Errorf("CPU torch must not be dumped: %+v %+v", snap.ComposableKernel.PytorchBundled, snap.AOTriton)
		}
		if d, _ := snap.PytorchBuild.Debug.(bool); !d || golden.OrNull(snap.PytorchBuild.HIPVersion) != "null" {
			t.Errorf("debug %v hip %s", snap.PytorchBuild.Debug, golden.OrNull(snap.PytorchBuild.HIPVersion))
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
	if v := golden.OrNull(snap.PytorchVersion); v != "2.9.1+rocm7.2.1.gitff65f5bc" {
		t.Errorf("pytorch_version %s", v)
	}
	pb := snap.PytorchBuild
	if golden.OrNull(pb.GitCommit) != "ff65f5bc672795c5e5033900ea0a0c4f8566c8cf" || golden.OrNull(pb.HIPVersion) != "7.2.53211" || pb.CUDAVersion != nil || pb.Debug != false {
		t.Errorf("torch.version fields: %s %s %s %v", golden.OrNull(pb.GitCommit), golden.OrNull(pb.HIPVersion), golden.OrNull(pb.CUDAVersion), pb.Debug)
	}
	if pb.InstallKind != "wheel" || pb.SourcePath != nil {
		t.Errorf("install %s %s", pb.InstallKind, golden.OrNull(pb.SourcePath))
	}
	if got := strings.Join(pb.Flags.GPUArchList, ","); got != "gfx942" {
		t.Errorf("gpu_arch_list %q", got)
	}
	if v, _ := pb.Flags.BuildSettings.Get("USE_ROCM_KERNEL_ASSERT"); v != "OFF" || len(pb.Flags.BuildSettings) != 15 {
		t.Errorf("build_settings %v", pb.Flags.BuildSettings)
	}
	if golden.OrNull(pb.Flags.CXXFlagsRaw) != testdoc.TorchConfigCXXFlags || pb.Flags.CUDAFlagsRaw != nil || len(pb.Flags.CXXDefines) != 8 {
		t.Errorf("flags %+v", pb.Flags)
	}
	if v, _ := pb.BuildFlags.Get("BUILD_TYPE"); v != "Release" {
		t.Errorf("BUILD_TYPE %v", v)
	}
	if got := testdoc.MapText(pb.BinaryIntrospection.CXXFlagsUseDefines, func(b bool) string { return pyjson.Str(b) }); got != "USE_ROCM_CK_SDPA=True;USE_ROCM_CK_GEMM=False;" {
		t.Errorf("cxx_flags_use_defines %s", got)
	}
	if got := testdoc.MapText(pb.BinaryIntrospection.TorchLibBundled, func(b bool) string { return pyjson.Str(b) }); got != "libaotriton_v2.so=True;" {
		t.Errorf("torch_lib_bundled %s", got)
	}
	if pb.CMakeCache.Entries != nil || pb.NinjaHIPCC.Targets != nil {
		t.Errorf("wheel install has no build files: %+v %+v", pb.CMakeCache, pb.NinjaHIPCC)
	}
	sd := snap.PytorchSDPA.BackendsEnabled
	if golden.OrNull(sd.Flash) != "true" || golden.OrNull(sd.MemEfficient) != "false" || golden.OrNull(sd.Math) != "true" || sd.CuDNN != nil {
		t.Errorf("sdpa %s %s %s %s", golden.OrNull(sd.Flash), golden.OrNull(sd.MemEfficient), golden.OrNull(sd.Math), golden.OrNull(sd.CuDNN))
	}
	wantSnapReasons(t, snap, "pytorch_sdpa", "pytorch_sdpa.cudnn_sdp_enabled: torch.backends.cuda.cudnn_sdp_enabled() raised (RuntimeError)")
	wantSnapReasons(t, snap, "pytorch_build",
		"pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; resolve via github.com/pytorch/pytorch/tree/ff65f5bc672795c5e5033900ea0a0c4f8566c8cf/third_party/<name> (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)")
	wantSnapReasons(t, snap, "pytorch_version")
	wantSnapReasons(t, snap, "python_version")

	if golden.OrNull(snap.Triton.PackageVersion) != "3.5.1+rocm7.2.1.gita272dfa8" || golden.OrNull(snap.Triton.Commit) != "a272dfa8" {
		t.Errorf("triton %+v", snap.Triton)
	}
	wantSnapReasons(t, snap, "triton")
	fb := snap.FBGEMM
	if golden.OrNull(fb.PackageVersion) != "1.4.0" || golden.OrNull(fb.Commit) != "deadbeef1234" || golden.OrNull(fb.PytorchUseFBGEMM) != "true" || golden.OrNull(fb.PytorchUseFBGEMMGenAI) != "false" {
		t.Errorf("fbgemm %s %s %s %s", golden.OrNull(fb.PackageVersion), golden.OrNull(fb.Commit), golden.OrNull(fb.PytorchUseFBGEMM), golden.OrNull(fb.PytorchUseFBGEMMGenAI))
	}
	tr := snap.TorchRec
	sha := "0123abcdef0123abcdef0123abcdef0123abcdef"
	if golden.OrNull(tr.PackageVersion) != "1.4.0" || golden.OrNull(tr.Commit) != sha || golden.OrNull(tr.SourceVersion) != "1.4.0" || golden.OrNull(tr.SourceCommit) != sha || golden.OrNull(tr.DistributionVersion) != "1.4.0" {
		t.Errorf("torchrec %+v", tr)
	}
	wantSnapReasons(t, snap, "torchrec")
	ai := snap.Aiter
	if golden.OrNull(ai.PackageVersion) != "0.1.11.dev32+g9a469a608" || golden.OrNull(ai.PackageDistName) != "amd_aiter" || golden.OrNull(ai.Commit) != "9a469a608" {
		t.Errorf("aiter %s %s %s", golden.OrNull(ai.PackageVersion), golden.OrNull(ai.PackageDistName), golden.OrNull(ai.Commit))
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
	if want := hsaCombined(t, site+"/aiter_meta/hsa/gfx942"); golden.OrNull(g.CombinedSHA256) != want {
		t.Errorf("combined %s, want %s (python)", golden.OrNull(g.CombinedSHA256), want)
	}
	wantSnapReasons(t, snap, "aiter")

	ao := snap.AOTriton
	if !ao.BundledPresent || golden.OrNull(ao.BundledVersion) != "0.11.1" || !ao.BundledImagesDirPresent || golden.OrNull(ao.BundledLibHash) != sha256Hex("aotriton bytes") {
		t.Errorf("aotriton %+v %s %s", ao, golden.OrNull(ao.BundledVersion), golden.OrNull(ao.BundledLibHash))
	}
	wantSnapReasons(t, snap, "aotriton")
	ck := snap.ComposableKernel
	if golden.OrNull(ck.PytorchUseCKSDPA) != "true" || golden.OrNull(ck.PytorchUseCKGemm) != "false" {
		t.Errorf("ck flags %s %s", golden.OrNull(ck.PytorchUseCKSDPA), golden.OrNull(ck.PytorchUseCKGemm))
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
	got := testdoc.MapText(counts, golden.OrNull[int])
	want := "pytorch_flash::=2;mha_fwd_aot=1;mha_fwd_ck=1;_efficient_attention=0;aotriton::=1;ck_tile::FmhaFwd=1;ck_tile::FmhaBwd=0;ck_tile::BlockFmha=0;ck_tile::TileFmha=0;group_gemm_ck=0;aiter::=0;"
	if got != want {
		t.Errorf("symbol counts\n got %s\nwant %s", got, want)
	}
	wantSnapReasons(t, snap, "composable_kernel.pytorch")
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

// BenchmarkParseHelperOutput reads a helper stream whose torch facts carry
// a 300 KiB /proc/self/maps, as a process that mapped torch reports it
// (go test ./probe -run '^$' -bench ParseHelperOutput).
func BenchmarkParseHelperOutput(b *testing.B) {
	maps := strings.Repeat(`7f0000000000-7f0000001000 r-xp 00000000 08:01 1234 /usr/lib/python3/site-packages/torch/lib/libtorch_hip.so\n`, 2800)
	stream := strings.Replace(helperStream(`{"a": [1, 2.5, "x"]}`, "2.5.0"), `"maps": null`, `"maps": "`+maps+`"`, 1)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for range b.N {
		f := &pyFacts{TorchSites: map[string]string{}}
		parseHelperOutput(f, []byte(stream))
		if f.outcome != pyOK || f.Torch == nil || f.Torch.Maps == nil {
			b.Fatal("stream not read")
		}
	}
}

// helperBootstrap is the first part of python_helper.stdin, before the
// base64 text; helperBootstrapEnd the rest.
const (
	helperBootstrap    = `import zlib,binascii;exec(compile(zlib.decompress(binascii.a2b_base64(b"`
	helperBootstrapEnd = `")),"<aorta-probe helper>","exec"))` + "\n"
)

// strippedHelper is python_helper.py without its comment-only and blank
// lines (no multi-line string of the helper holds such a line).
func strippedHelper(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("python_helper.py")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, l := range strings.Split(string(src), "\n") {
		if tl := strings.TrimSpace(l); tl == "" || strings.HasPrefix(tl, "#") {
			continue
		}
		out.WriteString(l + "\n")
	}
	return out.Bytes()
}

// shippedHelper is the code python_helper.stdin carries: the stripped
// helper with every top-level function defined after _lazy replaced by
// `NAME = _lazy("NAME", SOURCE)`, a stand-in that compiles the function on
// its first call (docs/python.md, "Speed"). A function's lines are its def
// line and the indented lines after it (the stripped helper has no blank
// lines, and none of its statements continues at column 0).
func shippedHelper(t *testing.T) []byte {
	t.Helper()
	var out, fn bytes.Buffer
	name, lazy := "", false
	flush := func() {
		if name != "" {
			fmt.Fprintf(&out, "%s = _lazy(%s, %s)\n", name, strconv.QuoteToASCII(name), strconv.QuoteToASCII(fn.String()))
			name = ""
			fn.Reset()
		}
	}
	for _, l := range strings.SplitAfter(string(strippedHelper(t)), "\n") {
		if name != "" && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			fn.WriteString(l)
			continue
		}
		flush()
		def, ok := strings.CutPrefix(l, "def ")
		switch {
		case ok && lazy:
			name, _, _ = strings.Cut(def, "(")
			fn.WriteString(l)
		case ok && strings.HasPrefix(def, "_lazy("):
			lazy = true // the functions after it are shipped lazily
			out.WriteString(l)
		default:
			out.WriteString(l)
		}
	}
	flush()
	if !lazy {
		t.Fatal("python_helper.py defines no _lazy")
	}
	return out.Bytes()
}

// helperSameSyntax is a Python program that exits 0 when the program on
// stdin, each `NAME = _lazy("NAME", SOURCE)` replaced by the definition in
// SOURCE, parses to the same syntax tree as the file argv[1].
const helperSameSyntax = `import ast, sys
want = ast.dump(ast.parse(open(sys.argv[1]).read()))
shipped = ast.parse(sys.stdin.read())
body = []
for st in shipped.body:
    c = getattr(st, "value", None)
    if isinstance(st, ast.Assign) and isinstance(c, ast.Call) and getattr(c.func, "id", "") == "_lazy":
        name, src = c.args[0].value, c.args[1].value
        defs = ast.parse(src).body
        if st.targets[0].id != name or len(defs) != 1 or getattr(defs[0], "name", "") != name:
            sys.exit("the stand-in of %s does not hold its definition alone" % name)
        body.extend(defs)
    else:
        body.append(st)
shipped.body = body
sys.exit(0 if ast.dump(shipped) == want else "the shipped helper parses differently")
`

// TestHelperStdin: python_helper.stdin is the current python_helper.py
// (shippedHelper), and with each stand-in replaced by its source it has
// the syntax of python_helper.py (python3's ast, when python3 is on PATH).
// -update rewrites it. That the shipped code reports what the source does
// is TestHelperDifferential's job.
func TestHelperStdin(t *testing.T) {
	if !golden.Update() { // -update rewrites pythonHelperStdin, which the others read
		t.Parallel()
	}
	want := shippedHelper(t)
	if golden.Update() {
		var z bytes.Buffer
		w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		w.Write(want)
		w.Close()
		payload := helperBootstrap + base64.StdEncoding.EncodeToString(z.Bytes()) + helperBootstrapEnd
		if err := os.WriteFile("python_helper.stdin", []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		pythonHelperStdin = []byte(payload)
	}
	got := string(pythonHelperStdin)
	if !strings.HasPrefix(got, helperBootstrap) || !strings.HasSuffix(got, helperBootstrapEnd) {
		t.Fatalf("python_helper.stdin is not the bootstrap: %.120q", got)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(got, helperBootstrap), helperBootstrapEnd))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	code, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(code, want) {
		t.Fatal("python_helper.stdin is stale: run go test ./probe -run TestHelperStdin -update")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: the syntax check of the shipped helper is skipped")
	}
	cmd := exec.Command(python, "-c", helperSameSyntax, "python_helper.py")
	cmd.Stdin = bytes.NewReader(code)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v: %s", err, out)
	}
}

// helperStreamOf runs python with the given stdin (and extra argv) in dir
// with PYTHONPATH=site and returns the helper's elements, torch.maps
// reduced to whether it was read (its addresses differ between runs).
func helperStreamOf(t *testing.T, python, dir, site string, stdin []byte, args ...string) []any {
	t.Helper()
	cmd := exec.Command(python, append([]string{"-"}, args...)...)
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
	path := site
	for _, extra := range []string{"torchrec-1.0-py3.egg", "d.zip"} {
		if _, err := os.Stat(filepath.Join(site, extra)); err == nil {
			path += ":" + filepath.Join(site, extra)
		}
	}
	cmd.Env = append(os.Environ(), "PYTHONPATH="+path)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	var els []any
	if err := json.Unmarshal(out, &els); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	for _, e := range els {
		if m, ok := e.(map[string]any)["torch"].(map[string]any); ok {
			m["maps"] = m["maps"] != nil
		}
	}
	return els
}

// TestHelperDifferential: the shipped helper (stdin payload, every speed
// shortcut on: its own JSON writer, find_spec without importlib.util,
// importlib.metadata only where a distribution may exist, no platform on
// CPython, each function compiled on its first call) reports exactly what the
// source does with every shortcut off (--exact), on site trees with and
// without each package and distribution, a distribution without its
// package, a namespace torchrec, an .egg and a zip on the path.
func TestHelperDifferential(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	src, err := os.ReadFile("python_helper.py")
	if err != nil {
		t.Fatal(err)
	}
	sites := map[string]func(t *testing.T, site string){
		"empty": func(t *testing.T, site string) {},
		"all":   func(t *testing.T, site string) { fakeSiteA(t, site) },
		"dists only": func(t *testing.T, site string) {
			testtree.Files(t, site, map[string]string{
				"torchrec-1.4.0.dist-info/METADATA":      "Name: torchrec\nVersion: 1.4.0\n",
				"rocm-7.2.1.dist-info/METADATA":          "Name: rocm\nVersion: 7.2.1\n",
				"rocm_sdk_core-7.2.1.dist-info/METADATA": "Name: rocm-sdk-core\nVersion: 7.2.1\n",
				"AIter-0.2.dist-info/METADATA":           "Name: aiter\nVersion: 0.2\n",
				"_rocm_sdk_core/__init__.py":             "",
			})
		},
		"an egg and a zip on the path": func(t *testing.T, site string) {
			testtree.Files(t, site, map[string]string{
				"torchrec-1.0-py3.egg/EGG-INFO/PKG-INFO":    "Metadata-Version: 1.0\nName: torchrec\nVersion: 1.0\n",
				"torchrec-1.0-py3.egg/torchrec/__init__.py": "",
			})
			var zb bytes.Buffer
			zw := zip.NewWriter(&zb)
			w, _ := zw.Create("rocm-7.0.dist-info/METADATA")
			w.Write([]byte("Name: rocm\nVersion: 7.0\n"))
			zw.Close()
			if err := os.WriteFile(filepath.Join(site, "d.zip"), zb.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"namespace torchrec, broken version": func(t *testing.T, site string) {
			testtree.Files(t, site, map[string]string{
				"torchrec/sub/x.py":             "",
				"torchrec-9.dist-info/METADATA": "Name: torchrec\nVersion: not a version\n",
				"amd-aiter.egg-info":            "Metadata-Version: 1.0\nName: amd-aiter\nVersion: 0.3\n",
			})
		},
	}
	for name, fill := range sites {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			site := filepath.Join(dir, "site")
			os.MkdirAll(site, 0o755)
			fill(t, site)
			want := helperStreamOf(t, python, dir, site, src, "--exact")
			got := helperStreamOf(t, python, dir, site, pythonHelperStdin)
			if !reflect.DeepEqual(got, want) {
				wj, _ := json.MarshalIndent(want, "", " ")
				gj, _ := json.MarshalIndent(got, "", " ")
				t.Errorf("shipped helper differs from --exact source\n got %s\nwant %s", gj, wj)
			}
		})
	}
}

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
	if rc := snap.RuntimeContext; rc.PythonEnv != "venv" || golden.OrNull(rc.VenvPath) != "/venvs/x" {
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
	t.Parallel()
	dir := t.TempDir()
	testtree.Files(t, dir, map[string]string{"python3": "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho 'SyntaxError: invalid syntax' >&2\nexit 3\n"})
	snap := Collect(context.Background(), bridgeOptions(map[string]string{}, []string{dir}))
	wantSnapReasons(t, snap, "python_version", "python_version: interpreter python3 exited 3 before the helper reported (SyntaxError: invalid syntax)")
	wantSnapReasons(t, snap, "pytorch_version", "pytorch_version: torch not importable")
	if snap.PythonVersion != "" {
		t.Errorf("python_version %q", snap.PythonVersion)
	}
	// An interpreter that exits 0 with nothing useful on stdout.
	testtree.Files(t, dir, map[string]string{"python": "#!/bin/sh\necho hello\n"})
	opt := bridgeOptions(map[string]string{}, []string{dir})
	opt.Python.Interpreter = "python"
	snap = Collect(context.Background(), opt)
	wantSnapReasons(t, snap, "python_version", "python_version: interpreter python printed no complete helper document (no output on stderr)")
}

func TestBridgeTorchRaises(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	testtree.Files(t, site, map[string]string{
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
	t.Parallel()
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	// The fake torch marks that the helper is importing it, then hangs.
	importing := filepath.Join(dir, "importing")
	testtree.Files(t, site, map[string]string{"torch/__init__.py": fmt.Sprintf("open(%q, 'w').close()\nimport time\ntime.sleep(120)\n", importing)})
	py := wrapper(t, dir, "py", python, site)
	opt := bridgeOptions(map[string]string{}, hermeticPath(t))
	opt.Python.Interpreter = py
	opt.Python.Timeout = 3 * time.Second
	// The helper's timeout fires when the fake torch is being imported,
	// never before: a slow interpreter start on a loaded machine must not
	// read as "while starting". The runner checks the timeout the bridge
	// asks for and kills on that event instead of the clock.
	opt.Runner = runnerFunc(func(ctx context.Context, c machine.Command) machine.Result {
		if c.Argv[0] != py {
			return machine.ExecRunner{}.Run(ctx, c)
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
		return machine.ExecRunner{}.Run(ctx, c)
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
	t.Parallel()
	python := needPython(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH: submodule SHAs need it")
	}
	dir := t.TempDir()
	site, src := filepath.Join(dir, "site"), filepath.Join(dir, "pytorch")
	testtree.Files(t, site, map[string]string{
		"torch/__init__.py": "__version__ = '2.10.0a0+git1234567'\nfrom . import version\n",
		"torch/version.py":  "git_version = None\nhip = '7.1'\ncuda = None\ndebug = False\n",
	})
	testtree.Files(t, src, map[string]string{
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
	if pb.InstallKind != "source" || golden.OrNull(pb.SourcePath) != realSrc {
		t.Errorf("install %s %s", pb.InstallKind, golden.OrNull(pb.SourcePath))
	}
	if golden.OrNull(pb.SubmoduleCommits.ComposableKernel) != strings.TrimSpace(string(head)) || pb.SubmoduleCommits.Aiter != nil || golden.OrNull(pb.SubmoduleCommits.Source) != "git" {
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
	if got := strings.Join(pb.CMakeCache.Entries.Keys(), ","); got != "BUILD_TYPE,FLASH_NAMESPACE,USE_FLASH_ATTENTION,USE_NUMA,USE_ROCM_CK_SDPA" || golden.OrNull(pb.CMakeCache.SourceFile) != realSrc+"/build/CMakeCache.txt" {
		t.Errorf("cmake %v %s", pb.CMakeCache.Entries.Keys(), golden.OrNull(pb.CMakeCache.SourceFile))
	}
	n := pb.NinjaHIPCC
	if golden.OrNull(n.Parser) != "legacy_findhip_per_source" || n.LegacyScriptsScanned == nil || *n.LegacyScriptsScanned != 1 {
		t.Errorf("ninja %s %v", golden.OrNull(n.Parser), n.LegacyScriptsScanned)
	}
	if got := ninjaTargetText(n.Targets); got != "ck_sdpa{D:A=1;B=2;C=3;USE_ROCM_CK_SDPA=null; +USE_ROCM_CK_SDPA archs=}" {
		t.Errorf("targets %s", got)
	}
}

// TestBridgeROCmImportRoots is step 3 of root discovery (docs/rocm-roots.md):
// with no ROCM_PATH and no usable /opt/rocm, the wheel roots come from
// find_spec("_rocm_sdk_core") in the workload interpreter.
func TestBridgeROCmImportRoots(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	if machine.NewFS("/", "/", false).IsDir("/opt/rocm") {
		t.Skip("/opt/rocm exists on this machine: step 2 answers before the import system")
	}
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	testtree.Files(t, site, map[string]string{
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
	t.Parallel()
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	attempts := filepath.Join(dir, "attempts")
	testtree.Files(t, site, map[string]string{"torch/__init__.py": fmt.Sprintf("open(%q, 'a').write('import\\n')\nimport time\ntime.sleep(1.5)\nraise OSError('hipErrorNoDevice')\n", attempts)})
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
	t.Parallel()
	python := needPython(t)
	torch := map[string]string{"torch/__init__.py": "__version__ = '2.10.0a0+gitabcdef0'\n"}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir, site string)
		kind  string
		src   string // relative to dir
	}{
		{"editable via direct_url.json", func(t *testing.T, dir, site string) {
			testtree.Files(t, dir, map[string]string{"src/third_party/x": ""})
			testtree.Files(t, site, map[string]string{"torch-2.10.0a0+gitabcdef0.dist-info/direct_url.json": `{"url": "file://` + dir + `/src", "dir_info": {"editable": true}}`})
		}, "editable", "src"},
		{"editable flag false", func(t *testing.T, dir, site string) {
			testtree.Files(t, dir, map[string]string{"src/third_party/x": ""})
			testtree.Files(t, site, map[string]string{"torch-2.10.0a0+gitabcdef0.dist-info/direct_url.json": `{"url": "file://` + dir + `/src", "dir_info": {"editable": false}}`})
		}, "wheel", ""},
		{"broken direct_url.json", func(t *testing.T, dir, site string) {
			testtree.Files(t, site, map[string]string{"torch-2.10.0a0+gitabcdef0.dist-info/direct_url.json": `[1, 2`})
		}, "wheel", ""},
		{"checkout around torch", func(t *testing.T, dir, site string) {
			testtree.Files(t, site, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "third_party/x": ""})
		}, "source", "site"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			site := filepath.Join(dir, "site")
			testtree.Files(t, site, torch)
			tc.setup(t, dir, site)
			opt := bridgeOptions(map[string]string{}, []string{})
			opt.Python.Interpreter = wrapper(t, dir, "py", python, site)
			pb := Collect(context.Background(), opt).PytorchBuild
			want := ""
			if tc.src != "" {
				want = filepath.Join(dir, tc.src)
			}
			if pb.InstallKind != tc.kind || strings.TrimSuffix(golden.OrNull(pb.SourcePath), "null") != want {
				t.Errorf("install %s %s, want %s %s", pb.InstallKind, golden.OrNull(pb.SourcePath), tc.kind, want)
			}
		})
	}
}

// TestBridgeLoops: an interpreter that is this binary (by path, symbolic
// or hard link) is never run; a probe inside another probe's helper run
// (the marker set) runs no interpreter; the helper run carries the marker;
// a copy of the probe answering with its own document is named as such.
func TestBridgeLoops(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	self := filepath.Join(dir, "self")
	testtree.Files(t, dir, map[string]string{"self": "#!/bin/sh\ntouch " + ran + "\nexit 99\n"})
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
		testtree.Files(t, dir, map[string]string{"other": "#!/bin/sh\ntouch " + ran + "\nexit 99\n"})
		snap := Collect(context.Background(), opt)
		wantSnapReasons(t, snap, "python_version", "python_version: interpreter "+opt.Python.Interpreter+" not run: this probe runs inside the Python helper run of another aorta-probe (AORTA_PROBE_HELPER_OF is set), where running an interpreter could loop")
		if _, err := os.Stat(ran); err == nil {
			t.Fatal("an interpreter ran although the marker was set")
		}
	})

	t.Run("the helper run carries the marker", func(t *testing.T) {
		testtree.Files(t, dir, map[string]string{"python3": "#!/bin/sh\necho \"marker=$" + HelperMarker + "\" >&2\nexit 3\n"})
		snap := Collect(context.Background(), bridgeOptions(map[string]string{}, []string{dir}))
		wantSnapReasons(t, snap, "python_version", fmt.Sprintf("python_version: interpreter python3 exited 3 before the helper reported (marker=%d)", os.Getpid()))
	})

	t.Run("a copy answers with its document", func(t *testing.T) {
		testtree.Files(t, dir, map[string]string{"python3": "#!/bin/sh\nprintf '{\\n  \"schema_version\": \"1.16\",\\n  \"partial\": true\\n}\\n'\n"})
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

// TestRealTorch describes a real installed torch (Debian's python3-torch,
// a pip wheel, …) and compares the derived blocks with what the same
// interpreter says directly. The interpreter is $AORTA_TEST_TORCH_PYTHON,
// else /usr/bin/python3; the test skips when it cannot import torch.
func TestRealTorch(t *testing.T) {
	t.Parallel()
	python := os.Getenv("AORTA_TEST_TORCH_PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	script := `import json, re, sys, os
os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
import torch
text = torch.__config__.show()
m = re.search(r"Build settings:\s*(.*)", text, re.S)
settings = {}
if m:
    for p in re.finditer(r"([A-Z_][A-Z0-9_]*)=(.*?)(?=,\s+[A-Z_][A-Z0-9_]*=|\s*$)", m.group(1), re.S):
        settings[p.group(1)] = p.group(2).strip().rstrip(",").strip()
bc = torch.backends.cuda
def g(n):
    try:
        return bool(getattr(bc, n)())
    except Exception:
        return None
print(json.dumps({"version": str(torch.__version__), "git": torch.version.git_version or None,
  "hip": torch.version.hip, "settings": [[k, v] for k, v in settings.items()] or None,
  "arch": list(torch.cuda.get_arch_list()),
  "sdpa": [g(n) for n in ("flash_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled", "cudnn_sdp_enabled")]}))
`
	// What the interpreter says and what the probe describes are asked
	// side by side: each imports torch, seconds of CPU.
	type answer struct {
		out []byte
		err error
	}
	direct := make(chan answer, 1)
	go func() {
		out, err := exec.Command(python, "-c", script).Output()
		direct <- answer{out, err}
	}()
	path := hermeticPath(t)
	opt := bridgeOptions(map[string]string{"PATH": strings.Join(path, ":")}, path)
	opt.Python.Interpreter = python
	snap := Collect(context.Background(), opt)
	a := <-direct
	if a.err != nil {
		t.Skipf("%s cannot import torch (%v): no real torch to describe", python, a.err)
	}
	var want struct {
		Version, Git string
		HIP          *string
		Settings     [][2]string
		Arch         []string
		SDPA         []*bool
	}
	if err := json.Unmarshal(a.out, &want); err != nil {
		t.Fatal(err)
	}
	t.Logf("described torch %s with %s", want.Version, python)
	wantSnapReasons(t, snap, "python_version")
	wantSnapReasons(t, snap, "pytorch_version")
	if golden.OrNull(snap.PytorchVersion) != want.Version || golden.OrNull(snap.PytorchBuild.GitCommit) != want.Git {
		t.Errorf("version %s git %s, want %s %s", golden.OrNull(snap.PytorchVersion), golden.OrNull(snap.PytorchBuild.GitCommit), want.Version, want.Git)
	}
	var got [][2]string
	for _, e := range snap.PytorchBuild.Flags.BuildSettings {
		got = append(got, [2]string{e.Key, e.Value})
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want.Settings)
	if string(g) != string(w) {
		t.Errorf("build_settings\n got %s\nwant %s", g, w)
	}
	if strings.Join(snap.PytorchBuild.Flags.GPUArchList, ",") != strings.Join(want.Arch, ",") {
		t.Errorf("gpu_arch_list %v, want %v", snap.PytorchBuild.Flags.GPUArchList, want.Arch)
	}
	sd := snap.PytorchSDPA.BackendsEnabled
	for i, p := range []*bool{sd.Flash, sd.MemEfficient, sd.Math, sd.CuDNN} {
		if golden.OrNull(p) != golden.OrNull(want.SDPA[i]) {
			t.Errorf("sdpa getter %d: %s, want %s", i, golden.OrNull(p), golden.OrNull(want.SDPA[i]))
		}
	}
	if want.HIP == nil {
		// A CPU or CUDA build: the ROCm-only parts stay silent defaults.
		wantSnapReasons(t, snap, "composable_kernel.pytorch_bundled")
		wantSnapReasons(t, snap, "aotriton")
		if snap.AOTriton.BundledPresent || snap.ComposableKernel.PytorchBundled.SymbolCount != nil {
			t.Errorf("CPU torch: %+v %+v", snap.AOTriton, snap.ComposableKernel.PytorchBundled)
		}
	}
	if snap.PytorchBuild.InstallKind == "unknown" {
		t.Errorf("install_kind unknown for an importable torch")
	}
}

// TestHelperStdinSeekable: the helper reads a seekable stdin with a coding
// line (pythonHelperSeekable), and an interpreter that gets it through a
// pipe (a wrapper forwarding its stdin, as `docker exec -i` does) is run
// again with the bootstrap alone: the document is the same either way
// (the second run is the bootstrap alone through a pipe, as before).
func TestHelperStdinSeekable(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	fakeSiteA(t, site)
	runs := filepath.Join(dir, "runs")
	testtree.Files(t, dir, map[string]string{
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
	// The two interpreters run side by side.
	pipeDoc := make(chan string, 1)
	go func() { pipeDoc <- doc("pipe-python") }()
	file, pipe := doc("file-python"), <-pipeDoc
	if file != pipe {
		t.Errorf("seekable stdin and pipe give different documents:\n%s\n%s", file, pipe)
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 2 {
		t.Errorf("the pipe wrapper ran %d times, want 2 (coding line refused, then the bootstrap)", strings.Count(string(b), "run"))
	}
}

// TestSeekableStdin: the helper's stdin is a memory file holding the
// payload at offset 0, and a deleted temporary file where memfd_create is
// refused (an old kernel, a seccomp filter).
func TestSeekableStdin(t *testing.T) {
	refused := func(string) (*os.File, error) { return nil, syscall.EPERM }
	for name, newMemfd := range map[string]func(string) (*os.File, error){"memfd": machine.Memfd, "refused": refused} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			f, err := seekableStdin([]byte("payload"), newMemfd)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			link, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
			if wantMem := name == "memfd"; strings.HasPrefix(link, "/memfd:") != wantMem || (!wantMem && !strings.HasSuffix(link, " (deleted)")) {
				t.Errorf("stdin is %q", link)
			}
			if got, err := io.ReadAll(f); err != nil || string(got) != "payload" {
				t.Errorf("read %q, %v", got, err)
			}
			if ents, _ := os.ReadDir(os.Getenv("TMPDIR")); len(ents) != 0 {
				t.Errorf("left in TMPDIR: %v", ents)
			}
		})
	}
}
