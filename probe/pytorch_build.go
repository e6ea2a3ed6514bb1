package probe

import (
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// collectPytorchBuild is pytorch_build (docs/python.md), in the Python
// probe's order of work (and of reasons): install kind → torch.version fields
// → submodule commits → flags → binary introspection → build_flags →
// cmake_cache → ninja_hipcc.
//
// Sources: the helper's facts at the pytorch_build, pytorch_build.flags and
// pytorch_build.install_kind import sites (torch.__file__, __version__,
// torch.version.*, __config__.show(), cuda.get_arch_list()); everything
// else is read here: $AORTA_PYTORCH_SRC, the dist-info direct_url.json,
// `git -C <third_party/X> rev-parse HEAD`, torch's lib dir, the shared
// libtorch_hip symbol dump (from composable_kernel), CMakeCache.txt and
// build.ninja. Scope: process (which torch) and filesystem (its files).
func collectPytorchBuild(s *state) schema.PytorchBuild {
	b := schema.NotCapturedPytorchBuild()
	f := s.python()
	b.InstallKind, b.SourcePath = installKind(s, f)

	t, o := f.torchAt("pytorch_build")
	switch {
	case !o.imported(s, "pytorch_build", "torch", ""):
	case t.VersionModule == nil:
		s.reason("pytorch_build: torch.version unavailable (unexpectedly old build?)")
	default:
		vm := t.VersionModule
		b.GitCommit, b.HIPVersion, b.CUDAVersion = truthyStr(vm.GitVersion), truthyStr(vm.HIP), truthyStr(vm.CUDA)
		b.Debug = vm.Debug
		if b.GitCommit == nil {
			s.reason("pytorch_build.git_commit: torch.version.git_version is null")
		}
	}
	b.SubmoduleCommits = submoduleCommits(s, b.InstallKind, b.SourcePath, b.GitCommit)
	b.Flags = torchFlags(s, f)

	bi := &b.BinaryIntrospection
	if o == importOK {
		ck, _ := await(s, composableKernelBlock)
		if ck.dump.counts != nil {
			bi.LibtorchHIPSymbolCounts = nil
			for _, m := range schema.SymbolMarkers {
				n, _ := ck.dump.count(m)
				bi.LibtorchHIPSymbolCounts = append(bi.LibtorchHIPSymbolCounts, pyjson.Entry[*int]{Key: m, Value: &n})
			}
		}
		bi.TorchLibBundled = torchLibBundled(s, t)
	}
	if raw := b.Flags.CXXFlagsRaw; raw != nil {
		bi.CXXFlagsUseDefines = pyjson.Map[bool]{
			{Key: "USE_ROCM_CK_SDPA", Value: hasDefine(*raw, "USE_ROCM_CK_SDPA")},
			{Key: "USE_ROCM_CK_GEMM", Value: hasDefine(*raw, "USE_ROCM_CK_GEMM")},
		}
	}
	b.BuildFlags = projectBuildFlags(b.Flags.BuildSettings, b.Flags.CXXDefines)
	b.CMakeCache = collectCMakeCache(s, b.InstallKind, b.SourcePath)
	b.NinjaHIPCC = collectNinjaHIPCC(s, b.InstallKind, b.SourcePath)
	return b
}

// installKind is pytorch_build.install_kind (docs/python.md): source
// (AORTA_PYTORCH_SRC with a third_party/, or a git checkout around torch),
// editable (direct_url.json of the torch dist-info), wheel, or unknown (torch
// not importable).
func installKind(s *state, f *pyFacts) (string, *string) {
	if src := s.getenv("AORTA_PYTORCH_SRC"); src != "" {
		cand := expandUser(s, src)
		if s.root.IsDir(cand + "/third_party") {
			return "source", schema.Str(s.root.Realpath(cand))
		}
	}
	t, o := f.torchAt("pytorch_build.install_kind")
	if o != importOK {
		return "unknown", nil
	}
	dir := t.fileDir()
	if dir == "" {
		return "unknown", nil
	}
	parent := pyDirname(dir)
	if v := t.Version; v != nil && *v != "" {
		if src, ok := editableSource(s, parent+"/torch-"+*v+".dist-info/direct_url.json"); ok && s.root.IsDir(src+"/third_party") {
			return "editable", schema.Str(s.root.Realpath(src))
		}
	}
	for _, p := range []string{parent, pyDirname(parent)} {
		if s.root.Exists(p+"/.git") && s.root.IsDir(p+"/third_party") {
			return "source", schema.Str(s.root.Realpath(p))
		}
	}
	return "wheel", nil
}

// editableSource reads a PEP 610 direct_url.json: the url with a leading
// "file://" removed (no URL decoding) when dir_info.editable is truthy.
// Read and JSON errors, and a top level that is not an object, fall
// through (Python would crash into its disaster path on the last).
func editableSource(s *state, p string) (string, bool) {
	if !s.root.Exists(p) {
		return "", false
	}
	b, err := s.root.ReadFile(p, machine.MaxTextFile)
	if err != nil {
		return "", false
	}
	v, err := pyjson.Decode(string(b))
	du, isObj := v.(pyjson.Map[any])
	if err != nil || !isObj {
		return "", false
	}
	di, _ := mget(du, "dir_info").(pyjson.Map[any])
	url, ok := mget(du, "url").(string)
	if di == nil || !pyjson.Truthy(mget(di, "editable")) || !ok {
		return "", false
	}
	return strings.TrimPrefix(url, "file://"), true
}

// submoduleNames are the keys of submodule_commits (before _source).
var submoduleNames = []string{"composable_kernel", "aiter", "fbgemm"}

// submoduleCommits is pytorch_build.submodule_commits (docs/python.md).
func submoduleCommits(s *state, kind string, src *string, gitCommit *string) schema.SubmoduleCommits {
	var sc schema.SubmoduleCommits
	switch {
	case (kind == "source" || kind == "editable") && src != nil:
		tp := *src + "/third_party"
		if !s.root.IsDir(tp) {
			s.reason("pytorch_build.submodule_commits: %s missing on detected %s tree at %s", tp, kind, *src)
			return sc
		}
		dst := []**string{&sc.ComposableKernel, &sc.Aiter, &sc.FBGEMM}
		var missing []string
		for i, name := range submoduleNames {
			if sha := gitHead(s, tp+"/"+name); sha != nil {
				*dst[i] = sha
			} else {
				missing = append(missing, name)
			}
		}
		if len(missing) < len(submoduleNames) {
			sc.Source = schema.Str("git")
		}
		if len(missing) > 0 {
			s.reason("pytorch_build.submodule_commits: source tree at %s has no readable git checkout for: %s", *src, strings.Join(missing, ", "))
		}
	case kind == "wheel":
		c := "<git_commit>"
		if gitCommit != nil {
			c = *gitCommit
		}
		s.reason("pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; resolve via github.com/pytorch/pytorch/tree/%s/third_party/<name> (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)", c)
	default:
		s.reason("pytorch_build.submodule_commits: torch import failed -- submodule SHAs unrecoverable")
	}
	return sc
}

// gitHead is `git -C dir rev-parse HEAD` (5 s): the stripped output when it
// is all hex digits, else nil.
func gitHead(s *state, dir string) *string {
	if !s.root.Exists(dir) {
		return nil
	}
	r := s.run(machine.Command{Argv: []string{"git", "-C", dir, "rev-parse", "HEAD"}, Timeout: machine.ShortTimeout})
	if r.Err != nil {
		return nil
	}
	out := pyfmt.Strip(string(r.Stdout))
	if out == "" || !isHexString(out, 1, len(out)) {
		return nil
	}
	return &out
}

// torchFlags is pytorch_build.flags (docs/python.md) at the
// pytorch_build.flags import site.
func torchFlags(s *state, f *pyFacts) schema.PytorchFlags {
	var fl schema.PytorchFlags
	t, o := f.torchAt("pytorch_build.flags")
	if !o.imported(s, "pytorch_build.flags", "torch", "") {
		return fl
	}
	switch t.ArchList.State {
	case "ok":
		// A list, or null read as an empty list (as encoding/json read
		// it before); anything else is no answer.
		switch l := t.ArchList.Value.(type) {
		case nil, []any:
			fl.GPUArchList = []string{}
			la, _ := l.([]any)
			for _, a := range la {
				fl.GPUArchList = append(fl.GPUArchList, pyjson.Str(a))
			}
		}
	case "raised":
		s.reason("pytorch_build.flags.gpu_arch_list: torch.cuda.get_arch_list() raised (%s)", t.ArchList.Exc)
	}
	switch t.ConfigShow.State {
	case "ok":
	case "raised":
		s.reason("pytorch_build.flags: torch.__config__.show() raised (%s)", t.ConfigShow.Exc)
		return fl
	default:
		s.reason("pytorch_build.flags: torch.__config__.show unavailable")
		return fl
	}
	fl.BuildSettings = source.ParseBuildSettings(t.ConfigShow.Text)
	if v, ok := fl.BuildSettings.Get("CXX_FLAGS"); ok {
		fl.CXXFlagsRaw = &v
		fl.CXXDefines = source.ParseCXXDefines(v)
	}
	if v, ok := fl.BuildSettings.Get("CUDA_FLAGS"); ok {
		fl.CUDAFlagsRaw = &v
	}
	return fl
}

// torchLibBundled is binary_introspection.torch_lib_bundled: whether
// torch's lib dir holds libaotriton_v2.so (or a versioned name of it).
func torchLibBundled(s *state, t *pyTorch) pyjson.Map[bool] {
	dir, ok := torchNativeLibDir(s, t)
	if !ok {
		d := t.fileDir()
		if d == "" {
			return nil
		}
		dir = d + "/lib"
	}
	entries, err := s.root.ReadDir(dir)
	if err != nil {
		s.reason("pytorch_build.binary_introspection.torch_lib_bundled: %s scan failed (%s)", dir, pyfmt.ExcType(err))
		return nil
	}
	found := false
	for _, e := range entries {
		if n := e.Name(); n == "libaotriton_v2.so" || strings.HasPrefix(n, "libaotriton_v2.so.") {
			found = true
			break
		}
	}
	return pyjson.Map[bool]{{Key: "libaotriton_v2.so", Value: found}}
}

// truthyStr is `v if v else None` for a string attribute: nil for falsy
// values, the str() of anything else.
func truthyStr(v any) *string {
	if !pyjson.Truthy(v) {
		return nil
	}
	s := pyjson.Str(v)
	return &s
}

// coerceFlag is build_flags' coerce: ON/TRUE/1 → true, OFF/FALSE/0 → false
// (upper-cased, stripped, trailing commas removed), else the raw string.
func coerceFlag(raw string) any {
	u := strings.TrimRight(pyfmt.Strip(strings.ToUpper(raw)), ",")
	switch u {
	case "ON", "TRUE", "1":
		return true
	case "OFF", "FALSE", "0":
		return false
	}
	return raw
}

// projectBuildFlags is pytorch_build.build_flags (docs/python.md): the 17
// canonical names, each from build_settings (any alias) first, else from
// cxx_defines (a bare -DNAME is true), else null.
func projectBuildFlags(settings pyjson.Map[string], defines pyjson.Map[*string]) pyjson.Map[any] {
	out := make(pyjson.Map[any], 0, len(schema.BuildFlagNames))
	for _, name := range schema.BuildFlagNames {
		aliases := []string{name}
		if name == "USE_MIOPEN" {
			aliases = append(aliases, "CAFFE2_USE_MIOPEN")
		}
		var v any
		found := false
		for _, a := range aliases {
			if raw, ok := settings.Get(a); ok {
				v, found = coerceFlag(raw), true
				break
			}
		}
		if !found {
			for _, a := range aliases {
				if d, ok := defines.Get(a); ok {
					if d == nil {
						v = true
					} else {
						v = coerceFlag(*d)
					}
					break
				}
			}
		}
		out = append(out, pyjson.Entry[any]{Key: name, Value: v})
	}
	return out
}
