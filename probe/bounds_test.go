package probe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

func nested(depth int) string {
	return strings.Repeat("[", depth) + "true" + strings.Repeat("]", depth)
}

func TestValueBound(t *testing.T) {
	deep, _ := pyjson.Decode(nested(maxValueDepth + 1))
	ok, _ := pyjson.Decode(nested(maxValueDepth))
	obj, _ := pyjson.Decode(strings.Repeat(`{"k":`, maxValueDepth+1) + "1" + strings.Repeat("}", maxValueDepth+1))
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"scalar", "x", ""},
		{"at the depth", ok, ""},
		{"one deeper", deep, "nested deeper than 32 levels"},
		{"objects", obj, "nested deeper than 32 levels"},
		{"long string", strings.Repeat("a", maxValueBytes), "larger than 1048576 bytes"},
		{"many small", func() any {
			l := make([]any, maxValueBytes/4)
			for i := range l {
				l[i] = "ab"
			}
			return l
		}(), "larger than 1048576 bytes"},
	} {
		if got := valueBound(tc.v); got != tc.want {
			t.Errorf("%s: valueBound = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// helperStream is a complete helper output whose torch reports debug (raw
// JSON) and version, every call site ok.
func helperStream(debug, version string) string {
	var b strings.Builder
	b.WriteString(`[
{"interpreter": {"python_version": "3.11.7", "prefix": "/usr", "base_prefix": "/usr", "executable": "/usr/bin/python3", "rocm_sdk_core": null, "dists": {"rocm": {"state": "missing"}, "rocm-sdk-core": {"state": "missing"}}}}
`)
	for i, site := range []string{"rocm.version", "composable_kernel.pytorch_bundled", "composable_kernel.pytorch_use_ck_sdpa", "fbgemm.pytorch_use_fbgemm",
		"aotriton", "pytorch_version", "pytorch_build.install_kind", "pytorch_build", "pytorch_build.flags", "pytorch_sdpa"} {
		b.WriteString(`,{"torch_site": "` + site + `", "outcome": "ok"}` + "\n")
		if i == 0 {
			b.WriteString(`,{"torch": {"file": "/nonexistent/torch/__init__.py", "version": "` + version + `", "version_module": {"git_version": "0123456789abcdef", "hip": "6.2.0", "cuda": null, "debug": ` + debug + `}, "config_show": {"state": "missing"}, "arch_list": {"state": "missing"}, "backends_cuda": null, "maps": null}}` + "\n")
		}
	}
	b.WriteString(`,{"done": true}` + "\n]\n")
	return b.String()
}

// collectWithStream runs Collect with a fake python3 that prints stream.
func collectWithStream(t *testing.T, stream string) *schema.Snapshot {
	t.Helper()
	dir := t.TempDir()
	testtree.Files(t, dir, map[string]string{"stream.json": stream, "python3": "#!/bin/sh\nexec cat " + filepath.Join(dir, "stream.json") + "\n"})
	os.Chmod(filepath.Join(dir, "python3"), 0o755)
	return Collect(context.Background(), bridgeOptions(map[string]string{}, []string{dir}))
}

// pythonLoads checks that python3's json module loads each document, with
// the C scanner and with the pure-Python one (used where the C speedups
// are missing, and the stricter of the two about depth).
func pythonLoads(t *testing.T, docs map[string][]byte) {
	t.Helper()
	python := needPython(t)
	dir := t.TempDir()
	args := []string{"-c", `import json, json.scanner, sys
py = json.JSONDecoder()
py.scan_once = json.scanner.py_make_scanner(py)
for p in sys.argv[1:]:
    with open(p, encoding="utf-8") as f:
        text = f.read()
    for name, load in (("json.load", json.loads), ("pure-Python scanner", py.decode)):
        try:
            load(text)
        except BaseException as e:
            print("%s: %s: %s: %.200s" % (p, name, type(e).__name__, e))
`}
	for name, doc := range docs {
		p := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".json")
		if err := os.WriteFile(p, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	out, err := exec.Command(python, args...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("python3 could not load every document (%v):\n%s", err, out)
	}
}

// TestBridgeBoundedValues: a helper whose torch.version.debug is nested
// 5,000 deep (a 47 MB document once) and whose torch.__version__ is larger
// than the size bound: both are null with one reason each, the rest of the
// document stands, and python3's json module loads it. A value at the
// depth bound is kept and loads too.
func TestBridgeBoundedValues(t *testing.T) {
	t.Parallel()
	snap := collectWithStream(t, helperStream(nested(5000), strings.Repeat("2", maxValueBytes)))
	wantSnapReasons(t, snap, "python_version",
		"python_version: helper value torch.version larger than 1048576 bytes; recorded as null",
		"python_version: helper value torch.version_module.debug nested deeper than 32 levels; recorded as null")
	if snap.PythonVersion != "3.11.7" || snap.PytorchBuild.Debug != nil || snap.PytorchVersion != nil {
		t.Errorf("python_version %q debug %v pytorch_version %v", snap.PythonVersion, snap.PytorchBuild.Debug, deref(snap.PytorchVersion))
	}
	if g := snap.PytorchBuild.GitCommit; g == nil || *g != "0123456789abcdef" {
		t.Errorf("git_commit %v: the rest of the torch facts is lost", g)
	}
	hostile := pyjson.Encode(snap)

	snap = collectWithStream(t, helperStream(nested(maxValueDepth), "2.5.0"))
	wantSnapReasons(t, snap, "python_version")
	if snap.PytorchBuild.Debug == nil {
		t.Error("a value at the depth bound was dropped")
	}
	pythonLoads(t, map[string][]byte{"hostile": hostile, "at the bound": pyjson.Encode(snap)})
}

// TestGoldensLoadInPython: every golden document loads with python3's json
// module (both scanners).
func TestGoldensLoadInPython(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../testdata/golden/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	docs := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = b
	}
	pythonLoads(t, docs)
}

// TestTheRockBoundedPatches: a manifest (a file, written by a tool) whose
// patches nest deeper than the bound keeps the rest of the submodule and
// records [] with a reason.
func TestTheRockBoundedPatches(t *testing.T) {
	root := t.TempDir()
	manifest := `{"rocm_version": "7.15.0", "submodules": [` +
		`{"submodule_name": "deep", "pin_sha": "` + strings.Repeat("a", 40) + `", "patches": ` + nested(100) + `},` +
		`{"submodule_name": "fine", "pin_sha": "` + strings.Repeat("b", 40) + `", "patches": ["0001-fix.patch"]}]}`
	testtree.Files(t, root, map[string]string{"opt/rocm/share/therock/therock_manifest.json": manifest})
	opt := bridgeOptions(map[string]string{"ROCM_PATH": "/opt/rocm"}, []string{})
	opt.Root, opt.Python.Disabled = root, true
	snap := Collect(context.Background(), opt)
	wantSnapReasons(t, snap, "therock", "therock.submodules: patches of 'deep' nested deeper than 32 levels; recorded as []")
	subs := snap.TheRock.Submodules
	if len(subs) != 2 || string(pyjson.Encode(subs[0].Patches)) != "[]" || golden.OrNull(subs[0].PinSHA) != strings.Repeat("a", 40) || !strings.Contains(string(pyjson.Encode(subs[1].Patches)), "0001-fix.patch") {
		t.Errorf("submodules %s", pyjson.Encode(subs))
	}
}
