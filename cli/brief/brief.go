// Package brief is --summary's text: the human brief of a document, as
// the Python probe prints it (docs/usage.md#the-brief---summary).
package brief

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/visible"
	"aorta-probe/schema"
)

// Brief is the human summary of a document
// (docs/usage.md#the-brief---summary): 31 lines, each starting with two
// spaces, joined by LF, no trailing LF. Values print as Python's str() does
// (None, True, False, list and dict reprs), since the brief must read the
// same as the Python probe's, except that a control or bidi character is
// shown as visible.Escape writes it.
func Brief(s *schema.Snapshot) string {
	rt, ec := s.RuntimeContext, s.ExecutionContext
	h, r, a, hip, ga := s.Host, s.ROCm, s.AMDGPUDriver, s.HIP, s.GPUArch
	ck, tc, mc, rf, rc := s.ComposableKernel, s.TensileCatalog, s.MIOpenCatalog, s.RocFFTCatalog, s.RCCL
	pkgCell := pyjson.Str(a.PackageFullName)
	if a.PackageFullName == nil || *a.PackageFullName == "" {
		pkgCell = orQ(a.PackageName) + "=" + orQ(a.PackageVersion)
	}
	rocfft := orQs(rf.Status)
	if rf.KernelCache.Present {
		rocfft = "present (unreadable)"
		if pyjson.Truthy(rf.KernelCache.SHA256) {
			rocfft = "present " + short(rf.KernelCache.SHA256)
		}
	}
	rcclLine := fmt.Sprintf("  rccl:      %s (code=%s) net_plugin=%s", pyjson.Str(rc.Version), intStr(rc.VersionCode), rc.NetPluginMode)
	if pyjson.Truthy(rc.PluginPath) {
		rcclLine += " [" + path.Base(*rc.PluginPath) + "]"
	}
	ao := s.AOTriton
	prefix := "(unset)"
	if pyjson.Truthy(ao.InstalledPrefix) {
		prefix = *ao.InstalledPrefix
	}
	fb := s.FBGEMM
	lines := []string{
		fmt.Sprintf("  runtime:   %s / python=%s  container_detected=%s  probe=%s  ns=%s", rt.Type, rt.PythonEnv, yn(s.ContainerDetected), ec.ProbeInvocation, short(s.ProbeNamespace)),
		fmt.Sprintf("  host:      kernel=%s machine=%s  glibc=%s", orQ(h.KernelRelease), orQ(h.Machine), orQ(h.GlibcVersion)),
		fmt.Sprintf("  rocm:      %s (dev: %s)", pyjson.Str(r.Version), pyjson.Str(r.VersionDev)),
		amdgpuLine(a, pkgCell),
		fmt.Sprintf("  hip:       %s (%s)", pyjson.Str(hip.Version), pyjson.Str(hip.Platform)),
		fmt.Sprintf("  gpu_arch:  %s (counts=%s)", orQs(listRepr(ga.GfxTargets)), orQs(intMapRepr(ga.AgentArchCounts))),
		"  nics:      " + nicsCell(s.NICs),
		fmt.Sprintf("  hipblaslt: %s rocm_release_tweak=%s", pyjson.Str(s.HipBLASLt.PackageVersion), pyjson.Str(s.HipBLASLt.RocmReleaseTweak)),
		fmt.Sprintf("  rocblas:   %s rocm_release_tweak=%s", pyjson.Str(s.RocBLAS.PackageVersion), pyjson.Str(s.RocBLAS.RocmReleaseTweak)),
		fmt.Sprintf("  ck:        system=%s/%s  ck_tile=%s  libtorch_hip=%s ck:: syms", pyjson.Str(ck.System.Version), pyfmt.FirstRunes(orQ(ck.System.Commit), 8), yn(ck.System.CKTilePresent), intStr(ck.PytorchBundled.SymbolCount)),
		fmt.Sprintf("  tensile:   kernel_db=%s  [Tensile pip pkg: %s; build-time tool, normal]", short(s.Tensile.KernelDBCombinedHash), pkg(s.Tensile.PackageVersion)),
		fmt.Sprintf("  miopen:    %s rocm_release_tweak=%s", pyjson.Str(s.MIOpen.PackageVersion), pyjson.Str(s.MIOpen.RocmReleaseTweak)),
		fmt.Sprintf("  catalog:   tensile[hb=%s rb=%s]  miopen=%s  rocfft=%s", short(tc.HipBLASLt.Menu.CombinedContentHash), short(tc.RocBLAS.Menu.CombinedContentHash), short(mc.Menu.CombinedContentHash), rocfft),
		rcclLine,
		"  triton:    " + pkg(s.Triton.PackageVersion),
		fmt.Sprintf("  fbgemm:    in PyTorch: USE_FBGEMM=%s USE_FBGEMM_GENAI=%s  [fbgemm_gpu pip pkg: %s; separate from torch's vendored copy]", boolStr(fb.PytorchUseFBGEMM), boolStr(fb.PytorchUseFBGEMMGenAI), pkg(fb.PackageVersion)),
		"  torchrec:  " + torchrecCell(s.TorchRec),
		"  aiter:     " + aiterCell(s.Aiter),
		fmt.Sprintf("  aotriton:  bundled=%s present=%s images_dir=%s  [AOTRITON_INSTALLED_PREFIX=%s]", pyjson.Str(ao.BundledVersion), pyBool(ao.BundledPresent), pyBool(ao.BundledImagesDirPresent), prefix),
		"  build_sys: " + buildSysCell(s.BuildSystem),
		fmt.Sprintf("  buck ctx:  status=%s source=%s fingerprint=%s", orQs(s.BuckInvocation.Status), orQs(s.BuckInvocation.ContextSource), short(s.BuckInvocation.ContextFingerprint)),
		fmt.Sprintf("  python:    %s | pytorch: %s", s.PythonVersion, pyjson.Str(s.PytorchVersion)),
		"  torch build: " + torchBuildCell(s.PytorchBuild),
		"  torch flags: " + torchFlagsCell(s.PytorchBuild.Flags),
		"  torch syms:  " + torchSymsCell(s.PytorchBuild.BinaryIntrospection),
		"  flags:       " + stableFlagsCell(s.PytorchBuild.BuildFlags),
		"  cmake cache: " + cmakeCell(s.PytorchBuild.CMakeCache),
		"  ninja hipcc: " + ninjaCell(s.PytorchBuild.NinjaHIPCC),
		"  aiter hsa:   " + hsaCell(s.Aiter.HSATree),
		"  sdpa:        " + sdpaCell(s.PytorchSDPA.BackendsEnabled),
		"  rdhc:      " + rdhcCell(s.SystemHealth),
	}
	if s.Provenance != nil && s.Provenance.ROCmInstalls != nil {
		// The rocm line names the install the rocm block describes and
		// the others found, so a ROCm outside the described root (Debian's
		// under /usr) does not read as no ROCm; aorta-probe's own line
		// follows the Python probe's 31
		// (docs/rocm-roots.md#every-install-rocm_installs).
		lines[2] += "  " + rocmWhere(r.Root, *s.Provenance.ROCmInstalls)
		lines = append(lines, "  rocm installs: "+rocmInstallsCell(*s.Provenance.ROCmInstalls))
	}
	if s.Provenance != nil && s.Provenance.GPUs != nil {
		// aorta-probe's own line: the GPUs as they really are
		// (docs/hardware.md); none from an older document.
		lines = append(lines, "  gpus:      "+gpusCell(*s.Provenance.GPUs))
	}
	if s.Provenance != nil && s.Provenance.Tuning != nil {
		// The settings AMD's guides name, judged (docs/tuning.md).
		lines = append(lines, "  tuning:    "+tuningCell(*s.Provenance.Tuning))
	}
	// A value of the machine's (a sysfs string, a path) is shown, never
	// obeyed: a control or bidi character in it is an escape, and every
	// line stays one line (internal/visible, docs/usage.md).
	for i := range lines {
		lines[i] = visible.Escape(lines[i])
	}
	return strings.Join(lines, "\n")
}

// Summary is --summary's text (docs/usage.md#the-brief---summary): the
// brief and, for a partial document, an empty line, "Partial reasons:"
// and one "  - REASON" line per reason, each line ending in LF. A reason
// that points at a github link built from a commit this torch does not
// record (Debian's says "Unknown") says so instead (reasonText); the
// document keeps the reason as written.
func Summary(s *schema.Snapshot) string {
	text := Brief(s) + "\n"
	if s.Partial {
		text += "\nPartial reasons:\n"
		for _, r := range s.PartialReasons {
			text += "  - " + visible.Escape(reasonText(r)) + "\n"
		}
	}
	return text
}

// The pytorch_build.submodule_commits reason of a wheel install (the
// Python probe's text, with C the torch's git commit: probe's
// submoduleCommits writes it), and what the summary says instead where C
// is no commit (docs/usage.md#the-brief---summary).
const (
	wheelSHAsHead = "pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; resolve via github.com/pytorch/pytorch/tree/"
	wheelSHAsTail = "/third_party/<name> (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)"
	wheelNoCommit = "pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; this torch records no git commit (%s), so there is no tree to look them up in (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)"
)

// reasonText is a partial reason as the summary prints it: the reason,
// except that the wheel install's submodule_commits reason, whose link
// into github.com/pytorch/pytorch/tree/C leads nowhere when C is not a
// commit (Unknown, or the <git_commit> placeholder of a torch that
// records none), drops the link.
func reasonText(r string) string {
	rest, ok := strings.CutPrefix(r, wheelSHAsHead)
	if !ok {
		return r
	}
	c, ok := strings.CutSuffix(rest, wheelSHAsTail)
	if !ok || isCommit(c) {
		return r
	}
	return fmt.Sprintf(wheelNoCommit, c)
}

// rocmWhere says, after the rocm line, which install the rocm block (the
// 40 keys) describes, root being rocm.root, and which others
// rocm_installs found: "[describes ROOT KIND VERSION(SOURCE); also found:
// …]", or "[describes ROOT: no install there; found: …]", or
// "[describes ROOT: no ROCm install found]".
func rocmWhere(root string, ri schema.ROCmInstalls) string {
	described := ""
	var others []string
	for _, in := range ri.Installs {
		if in.Described {
			described = installText(in)
		} else {
			others = append(others, installText(in))
		}
	}
	if root == "" {
		root = "no root"
	}
	switch {
	case described != "" && len(others) == 0:
		return "[describes " + described + "]"
	case described != "":
		return "[describes " + described + "; also found: " + strings.Join(others, ", ") + "]"
	case len(others) > 0:
		return "[describes " + root + ": no install there; found: " + strings.Join(others, ", ") + "]"
	}
	return "[describes " + root + ": no ROCm install found]"
}

// installText is one install as the brief names it: root kind
// version(source), ? for no version.
func installText(in schema.ROCmInstall) string {
	v := "?"
	if in.Version != nil {
		v = *in.Version + "(" + pyjson.Str(in.VersionSource) + ")"
	}
	return in.Root + " " + in.Kind + " " + v
}

// rocmInstallsCell is every install as root kind version(source), the
// described one marked with *, then where the loader takes each library
// from: the install's root, the file when it is in no install, - when
// the loader finds none.
func rocmInstallsCell(ri schema.ROCmInstalls) string {
	var parts []string
	for _, in := range ri.Installs {
		mark := ""
		if in.Described {
			mark = "*"
		}
		parts = append(parts, mark+installText(in))
	}
	cell := "none"
	if len(parts) > 0 {
		cell = strings.Join(parts, "; ")
	}
	var loader []string
	for _, l := range ri.Loader {
		where := "-"
		switch {
		case l.Install != nil:
			where = *l.Install
		case l.Path != nil:
			where = *l.Path
		}
		loader = append(loader, strings.TrimSuffix(l.Library, ".so")+"="+where)
	}
	if len(loader) > 0 {
		cell += "  loader: " + strings.Join(loader, " ")
	}
	return cell
}

// orQ is Python `x or '?'`.
func orQ(p *string) string {
	if pyjson.Truthy(p) {
		return *p
	}
	return "?"
}

func orQs(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func intStr(p *int) string {
	if p == nil {
		return "None"
	}
	return strconv.Itoa(*p)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func boolStr(p *bool) string {
	if p == nil {
		return "None"
	}
	return pyBool(*p)
}

func yn(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// pkg is v if truthy else "(not installed)".
func pkg(p *string) string {
	if pyjson.Truthy(p) {
		return *p
	}
	return "(not installed)"
}

// short abbreviates "kind:hex" hashes to "kind:" + 6 hex + "…".
func short(p *string) string {
	if !pyjson.Truthy(p) {
		return "-"
	}
	v := *p
	kind, hex, ok := strings.Cut(v, ":")
	if ok && len([]rune(hex)) > 8 {
		return kind + ":" + pyfmt.FirstRunes(hex, 6) + "…"
	}
	return v
}

func listRepr(l []string) string {
	if len(l) == 0 {
		return ""
	}
	parts := make([]string, len(l))
	for i, s := range l {
		parts[i] = pyfmt.Repr(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func intMapRepr(m pyjson.Map[int]) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, len(m))
	for i, e := range m {
		parts[i] = pyfmt.Repr(e.Key) + ": " + strconv.Itoa(e.Value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func nicsCell(n schema.NICs) string {
	var cells []string
	for _, v := range []struct {
		key string
		nic schema.NIC
	}{{"ainic", n.AINIC}, {"broadcom", n.Broadcom}, {"cx7", n.CX7}} {
		switch {
		case v.nic.Present == nil:
			cells = append(cells, v.key+"(?)")
		case *v.nic.Present:
			fw, active, total := "?", 0, 0
			if d := v.nic.NICDetail; d != nil {
				fw = orQ(d.Firmware)
				total = len(d.Links)
				for _, l := range d.Links {
					if l.State != nil && *l.State == "ACTIVE" {
						active++
					}
				}
			}
			cells = append(cells, fmt.Sprintf("%s(fw=%s links=%d/%d)", v.key, fw, active, total))
		}
	}
	if len(cells) == 0 {
		return "(none present)"
	}
	return strings.Join(cells, "  ")
}

func torchrecCell(t schema.TorchRec) string {
	switch {
	case pyjson.Truthy(t.PackageVersion):
		s := *t.PackageVersion
		if pyjson.Truthy(t.Commit) {
			s += " commit=" + *t.Commit
		}
		return s
	case pyjson.Truthy(t.SourceCommit):
		return "present (version unknown) source_commit=" + *t.SourceCommit
	case pyjson.Truthy(t.DistributionVersion):
		return "primary unknown; dist=" + *t.DistributionVersion
	}
	return "(not installed)"
}

func aiterCell(a schema.Aiter) string {
	if !pyjson.Truthy(a.PackageVersion) {
		return "(not installed) [aiter pip pkg; optional ROCm inference lib]"
	}
	parts := []string{*a.PackageVersion}
	if pyjson.Truthy(a.Commit) {
		parts = append(parts, "commit="+pyfmt.FirstRunes(*a.Commit, 8))
	}
	if pyjson.Truthy(a.PackageDistName) {
		parts = append(parts, "pip dist="+*a.PackageDistName)
	}
	return strings.Join(parts, " ")
}

func buildSysCell(b schema.BuildSystem) string {
	if b.Kind != "buck2" || b.Buck2 == nil {
		return orQs(b.Kind)
	}
	rev := "?"
	if pyjson.Truthy(b.Revision) {
		rev = pyfmt.FirstRunes(*b.Revision, 8)
	}
	return fmt.Sprintf("buck2=%s repo_root=%s rev=%s", orQs(b.Version), orQs(b.RepoRoot), rev)
}

// amdgpuLine is the amdgpu line; where nothing was found (no package, no
// module version) it says so in words instead of "pkg=?=? (?)".
func amdgpuLine(a schema.AMDGPUDriver, pkgCell string) string {
	if !pyjson.Truthy(a.PackageName) && !pyjson.Truthy(a.PackageVersion) && !pyjson.Truthy(a.PackageFullName) && !pyjson.Truthy(a.KmdVersion) {
		return fmt.Sprintf("  amdgpu:    %s (no amdgpu package or loaded module found)  kfd=%s", orQs(a.Status), yn(a.KFDDevicePresent))
	}
	return fmt.Sprintf("  amdgpu:    %s pkg=%s (%s)  kmd=%s  kfd=%s", orQs(a.Status), pkgCell, orQ(a.PackageManager), orQ(a.KmdVersion), yn(a.KFDDevicePresent))
}

// installWords says what pytorch_build.install_kind knows: "wheel" only
// means that no source tree and no editable install were found, which a
// distribution's package (Debian's python3-torch in dist-packages, no
// wheel RECORD) also is.
func installWords(kind string) string {
	switch kind {
	case "wheel":
		return "prebuilt (a wheel or a distribution package: no source tree, not editable)"
	case "unknown":
		return "unknown (torch not importable)"
	}
	return orQs(kind)
}

func torchBuildCell(p schema.PytorchBuild) string {
	c := pyfmt.FirstRunes(orQ(p.GitCommit), 8)
	k := installWords(p.InstallKind)
	if p.InstallKind == "unknown" && !pyjson.Truthy(p.GitCommit) {
		return "torch not importable: no build to describe"
	}
	sc := p.SubmoduleCommits
	if sc.Source != nil && *sc.Source == "git" {
		var pairs []string
		for _, e := range []struct {
			name string
			sha  *string
		}{{"composable_kernel", sc.ComposableKernel}, {"aiter", sc.Aiter}, {"fbgemm", sc.FBGEMM}} {
			if pyjson.Truthy(e.sha) {
				pairs = append(pairs, e.name+"="+pyfmt.FirstRunes(*e.sha, 8))
			}
		}
		cell := "(none)"
		if len(pairs) > 0 {
			cell = strings.Join(pairs, " ")
		}
		return fmt.Sprintf("git_commit=%s install=%s | submodules(git): %s", c, k, cell)
	}
	if !isCommit(orQ(p.GitCommit)) {
		// No commit to link to (Debian's torch says "Unknown").
		return fmt.Sprintf("git_commit=%s install=%s [third_party SHAs: this torch records no git commit; set AORTA_PYTORCH_SRC=<src>]", c, k)
	}
	return fmt.Sprintf("git_commit=%s install=%s [third_party SHAs: set AORTA_PYTORCH_SRC=<src> or look up github.com/pytorch/pytorch/tree/%s/third_party/<name>]", c, k, c)
}

// isCommit reports whether s looks like a git commit: 7 to 40 hex digits.
func isCommit(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

var torchFlagNames = []string{"USE_ROCM", "USE_CUDA", "USE_NCCL", "USE_MKL", "USE_MKLDNN", "USE_FBGEMM",
	"USE_FBGEMM_GENAI", "USE_FLASH_ATTENTION", "USE_MEM_EFF_ATTENTION", "USE_ROCM_CK_SDPA",
	"USE_ROCM_CK_GEMM", "DISABLE_AOTRITON", "FLASH_NAMESPACE"}

func torchFlagsCell(f schema.PytorchFlags) string {
	if f.BuildSettings == nil && f.CXXDefines == nil && f.CXXFlagsRaw == nil && f.CUDAFlagsRaw == nil && f.GPUArchList == nil {
		return "(unavailable -- torch import failed or no __config__)"
	}
	arch := "?"
	if f.GPUArchList != nil {
		arch = "(none)"
		if len(f.GPUArchList) > 0 {
			arch = strings.Join(f.GPUArchList, ",")
		}
	}
	cells := make([]string, 0, len(torchFlagNames))
	for _, n := range torchFlagNames {
		switch {
		case f.BuildSettings == nil && f.CXXDefines == nil:
			cells = append(cells, n+"=?")
		case hasKey(f.BuildSettings, n):
			v, _ := f.BuildSettings.Get(n)
			cells = append(cells, n+"="+v)
		case hasKey(f.CXXDefines, n):
			v, _ := f.CXXDefines.Get(n)
			if v == nil {
				cells = append(cells, n+"=yes")
			} else {
				cells = append(cells, n+"="+*v)
			}
		case f.CXXDefines == nil:
			cells = append(cells, n+"=?")
		default:
			cells = append(cells, n+"=no")
		}
	}
	return fmt.Sprintf("gpu_archs=[%s]  %s", arch, strings.Join(cells, " "))
}

func hasKey[V any](m pyjson.Map[V], k string) bool {
	_, ok := m.Get(k)
	return ok
}

func torchSymsCell(b schema.BinaryIntrospection) string {
	var parts []string
	for _, e := range b.LibtorchHIPSymbolCounts {
		parts = append(parts, e.Key+"="+orQInt(e.Value))
	}
	lib := "torch_lib=?"
	if b.TorchLibBundled != nil {
		v, _ := b.TorchLibBundled.Get("libaotriton_v2.so")
		lib = "libaotriton_v2.so=" + yn(v)
	}
	defs := "cxx_defs=?"
	if b.CXXFlagsUseDefines != nil {
		sdpa, _ := b.CXXFlagsUseDefines.Get("USE_ROCM_CK_SDPA")
		gemm, _ := b.CXXFlagsUseDefines.Get("USE_ROCM_CK_GEMM")
		defs = fmt.Sprintf("-DUSE_ROCM_CK_SDPA=%s -DUSE_ROCM_CK_GEMM=%s", yn(sdpa), yn(gemm))
	}
	return strings.Join(parts, " ") + "  |  " + lib + "  |  " + defs
}

func orQInt(p *int) string {
	if p == nil {
		return "?"
	}
	return strconv.Itoa(*p)
}

func stableFlagsCell(m pyjson.Map[pyjson.Any]) string {
	allNull := true
	for _, e := range m {
		if e.Value != nil {
			allNull = false
		}
	}
	if allNull {
		return "(unavailable -- torch import failed or no __config__)"
	}
	v := func(k string) string {
		x, _ := m.Get(k)
		switch t := x.(type) {
		case bool:
			if t {
				return "on"
			}
			return "off"
		case nil:
			return "?"
		case string:
			return t
		}
		return pyjson.Str(x)
	}
	use, _ := m.Get("USE_AOTRITON")
	dis, _ := m.Get("DISABLE_AOTRITON")
	a := "?"
	switch {
	case dis == true || use == false:
		a = "off"
	case use == true || dis == false:
		a = "on"
	}
	return fmt.Sprintf("FLASH_ATTN=%s CK_SDPA=%s AOTRITON=%s MEM_EFF=%s", v("USE_FLASH_ATTENTION"), v("USE_ROCM_CK_SDPA"), a, v("USE_MEM_EFF_ATTENTION"))
}

func cmakeCell(c schema.CMakeCache) string {
	if c.Entries == nil {
		return "(unavailable -- wheel install or build/CMakeCache.txt missing)"
	}
	return fmt.Sprintf("%d allowlisted entries from %s", len(c.Entries), orQ(c.SourceFile))
}

func ninjaCell(n schema.NinjaHIPCC) string {
	if n.Targets == nil {
		return "(unavailable -- wheel install or build/build.ninja missing)"
	}
	if len(n.Targets) == 0 {
		return "(no targets of interest matched)"
	}
	names := n.Targets.Keys()
	sort.Strings(names)
	var cells []string
	for _, name := range names {
		t, _ := n.Targets.Get(name)
		archs := "?"
		if len(t.OffloadArchs) > 0 {
			archs = strings.Join(t.OffloadArchs, ",")
		}
		cells = append(cells, fmt.Sprintf("%s=%dD archs=[%s]", name, len(t.Defines), archs))
	}
	return strings.Join(cells, " ")
}

func hsaCell(tree pyjson.Map[pyjson.Map[schema.HSAArch]]) string {
	if len(tree) == 0 {
		return "(not present)"
	}
	roots := tree.Keys()
	sort.Strings(roots)
	var cells []string
	for _, root := range roots {
		parts := strings.Split(strings.TrimRight(root, "/"), "/")
		label := strings.Join(parts[max(0, len(parts)-2):], "/")
		archs, _ := tree.Get(root)
		names := archs.Keys()
		sort.Strings(names)
		for _, arch := range names {
			st, _ := archs.Get(arch)
			sha := "?"
			if st.CombinedSHA256 != nil {
				sha = pyfmt.FirstRunes(*st.CombinedSHA256, 8)
			}
			cells = append(cells, fmt.Sprintf("%s:%s=%s.co/%s", label, arch, intStr(st.COCount), sha))
		}
	}
	if len(cells) == 0 {
		return "(empty trees)"
	}
	return strings.Join(cells, " ")
}

func sdpaCell(b schema.SDPABackends) string {
	if b.Flash == nil && b.MemEfficient == nil && b.Math == nil && b.CuDNN == nil {
		return "(unavailable -- torch import failed or backends.cuda missing)"
	}
	o := func(p *bool) string {
		switch {
		case p == nil:
			return "?"
		case *p:
			return "on"
		}
		return "off"
	}
	return fmt.Sprintf("flash=%s mem_eff=%s math=%s cudnn=%s", o(b.Flash), o(b.MemEfficient), o(b.Math), o(b.CuDNN))
}

func rdhcCell(v pyjson.Any) string {
	if v == nil {
		return "unavailable (system_health=null)"
	}
	return "present"
}
