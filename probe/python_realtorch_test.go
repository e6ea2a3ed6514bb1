package probe

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRealTorch describes a real installed torch (Debian's python3-torch,
// a pip wheel, …) and compares the derived blocks with what the same
// interpreter says directly. The interpreter is $AORTA_TEST_TORCH_PYTHON,
// else /usr/bin/python3; the test skips when it cannot import torch.
func TestRealTorch(t *testing.T) {
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
	out, err := exec.Command(python, "-c", script).Output()
	if err != nil {
		t.Skipf("%s cannot import torch (%v): no real torch to describe", python, err)
	}
	var want struct {
		Version, Git string
		HIP          *string
		Settings     [][2]string
		Arch         []string
		SDPA         []*bool
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	path := hermeticPath(t)
	opt := bridgeOptions(map[string]string{"PATH": strings.Join(path, ":")}, path)
	opt.Python.Interpreter = python
	snap := Collect(context.Background(), opt)
	t.Logf("described torch %s with %s", want.Version, python)
	wantSnapReasons(t, snap, "python_version")
	wantSnapReasons(t, snap, "pytorch_version")
	if ptrV(snap.PytorchVersion) != want.Version || ptrV(snap.PytorchBuild.GitCommit) != want.Git {
		t.Errorf("version %s git %s, want %s %s", ptrV(snap.PytorchVersion), ptrV(snap.PytorchBuild.GitCommit), want.Version, want.Git)
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
		if ptrV2(p) != ptrV2(want.SDPA[i]) {
			t.Errorf("sdpa getter %d: %s, want %s", i, ptrV2(p), ptrV2(want.SDPA[i]))
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
