package brief

import (
	"strings"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// briefLine is the brief line whose label (after the two leading spaces)
// starts with label.
func briefLine(t *testing.T, s *schema.Snapshot, label string) string {
	t.Helper()
	for _, l := range strings.Split(Brief(s), "\n") {
		if strings.HasPrefix(l, "  "+label) {
			return l
		}
	}
	t.Fatalf("no %q line in\n%s", label, Brief(s))
	return ""
}

// The not-captured document's brief, line by line
// (docs/usage.md#the-brief---summary): 31 lines, label columns, Python
// None/True/False, get-or-? against or-?, no trailing newline.
func TestBriefNotCaptured(t *testing.T) {
	s := schema.NotCaptured()
	want := []string{
		"  runtime:   baremetal / python=system  container_detected=no  probe=direct  ns=-",
		"  host:      kernel=? machine=?  glibc=?",
		"  rocm:      None (dev: None)",
		"  amdgpu:    absent (no amdgpu package or loaded module found)  kfd=no",
		"  hip:       None (None)",
		"  gpu_arch:  ? (counts=?)",
		"  nics:      ainic(?)  broadcom(?)  cx7(?)",
		"  hipblaslt: None rocm_release_tweak=None",
		"  rocblas:   None rocm_release_tweak=None",
		"  ck:        system=None/?  ck_tile=no  libtorch_hip=None ck:: syms",
		"  tensile:   kernel_db=-  [Tensile pip pkg: (not installed); build-time tool, normal]",
		"  miopen:    None rocm_release_tweak=None",
		"  catalog:   tensile[hb=- rb=-]  miopen=-  rocfft=partial",
		"  rccl:      None (code=None) net_plugin=unknown",
		"  triton:    (not installed)",
		"  fbgemm:    in PyTorch: USE_FBGEMM=None USE_FBGEMM_GENAI=None  [fbgemm_gpu pip pkg: (not installed); separate from torch's vendored copy]",
		"  torchrec:  (not installed)",
		"  aiter:     (not installed) [aiter pip pkg; optional ROCm inference lib]",
		"  aotriton:  bundled=None present=False images_dir=False  [AOTRITON_INSTALLED_PREFIX=(unset)]",
		"  build_sys: none",
		"  buck ctx:  status=not_requested source=none fingerprint=-",
		"  python:     | pytorch: None",
		"  torch build: torch not importable: no build to describe",
		"  torch flags: (unavailable -- torch import failed or no __config__)",
		"  torch syms:  pytorch_flash::=? mha_fwd_aot=? mha_fwd_ck=? _efficient_attention=? aotriton::=? ck_tile::FmhaFwd=? ck_tile::FmhaBwd=? ck_tile::BlockFmha=? ck_tile::TileFmha=? group_gemm_ck=? aiter::=?  |  torch_lib=?  |  cxx_defs=?",
		"  flags:       (unavailable -- torch import failed or no __config__)",
		"  cmake cache: (unavailable -- wheel install or build/CMakeCache.txt missing)",
		"  ninja hipcc: (unavailable -- wheel install or build/build.ninja missing)",
		"  aiter hsa:   (not present)",
		"  sdpa:        (unavailable -- torch import failed or backends.cuda missing)",
		"  rdhc:      unavailable (system_health=null)",
	}
	got := strings.Split(Brief(s), "\n")
	if len(got) != 31 {
		t.Fatalf("%d lines, want 31", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d\n got %q\nwant %q", i+1, got[i], want[i])
		}
	}
}

// The Python probe's brief samples and its value renderings (None, True,
// list and dict reprs, short hashes).
func TestBriefSamples(t *testing.T) {
	s := schema.NotCaptured()
	s.RuntimeContext = schema.RuntimeContext{Type: "docker", PythonEnv: "venv"}
	s.ContainerDetected = true
	s.ExecutionContext.ProbeInvocation = "buck2_action"
	s.ProbeNamespace = schema.Str("mnt:0123456789abcdef")
	s.BuckInvocation.Status, s.BuckInvocation.ContextSource = "success", "explicit"
	s.BuckInvocation.ContextFingerprint = schema.Str("sha256:" + strings.Repeat("a", 64))
	s.TorchRec.SourceCommit = schema.Str("S")
	s.GPUArch = schema.GPUArch{AgentCount: schema.Int(3), GfxTargets: []string{"gfx1100", "gfx942"}, AgentArchCounts: pyjson.Map[int]{{Key: "gfx1100", Value: 1}, {Key: "gfx942", Value: 2}}}
	s.AMDGPUDriver.PackageFullName = schema.Str("")
	s.AMDGPUDriver.PackageName, s.AMDGPUDriver.PackageVersion = schema.Str("amdgpu-dkms"), schema.Str("1:6.14.14")
	s.RCCL.Version, s.RCCL.VersionCode = schema.Str("2.27.7"), schema.Int(22707)
	s.RCCL.NetPluginMode, s.RCCL.PluginPath = "external", schema.Str("/opt/plugins/librccl-anp.so")
	s.RocFFTCatalog.KernelCache.Present = true
	s.SystemHealth = pyjson.Map[pyjson.Any]{}
	for _, tc := range []struct{ label, want string }{
		{"runtime:", "  runtime:   docker / python=venv  container_detected=yes  probe=buck2_action  ns=mnt:012345…"},
		{"buck ctx:", "  buck ctx:  status=success source=explicit fingerprint=sha256:aaaaaa…"},
		{"torchrec:", "  torchrec:  present (version unknown) source_commit=S"},
		{"gpu_arch:", "  gpu_arch:  ['gfx1100', 'gfx942'] (counts={'gfx1100': 1, 'gfx942': 2})"},
		{"amdgpu:", "  amdgpu:    absent pkg=amdgpu-dkms=1:6.14.14 (?)  kmd=?  kfd=no"},
		{"rccl:", "  rccl:      2.27.7 (code=22707) net_plugin=external [librccl-anp.so]"},
		{"catalog:", "  catalog:   tensile[hb=- rb=-]  miopen=-  rocfft=present (unreadable)"},
		{"rdhc:", "  rdhc:      present"},
	} {
		if got := briefLine(t, s, tc.label); got != tc.want {
			t.Errorf("\n got %q\nwant %q", got, tc.want)
		}
	}
	// short(): at most 8 hex chars after the first colon stay whole.
	s.Tensile.KernelDBCombinedHash = schema.Str("filenames-sha256:01234567")
	if got := briefLine(t, s, "tensile:"); !strings.HasPrefix(got, "  tensile:   kernel_db=filenames-sha256:01234567  [") {
		t.Errorf("got %q", got)
	}
}

// TestBriefPythonText: list reprs and flag values print as Python's repr()
// and str() do. The brief's own copy of repr (pyStrRepr) left a newline raw
// and fmt.Sprint printed a float literal as read and a list Go's way.
func TestBriefPythonText(t *testing.T) {
	s := schema.NotCaptured()
	s.GPUArch.GfxTargets = []string{"gfx\n942", "it's"}
	if got, want := briefLine(t, s, "gpu_arch:"), `  gpu_arch:  ['gfx\n942', "it's"] (counts=?)`; got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	s.PytorchBuild.BuildFlags = pyjson.Map[pyjson.Any]{
		{Key: "USE_FLASH_ATTENTION", Value: pyjson.Number("1e5")},
		{Key: "USE_ROCM_CK_SDPA", Value: []any{"a"}},
		{Key: "USE_MEM_EFF_ATTENTION", Value: true},
	}
	if got, want := briefLine(t, s, "flags:"), "  flags:       FLASH_ATTN=100000.0 CK_SDPA=['a'] AOTRITON=? MEM_EFF=on"; got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

// TestBriefROCmInstalls: aorta-probe's own line after the Python probe's 31
// names every install (the described one marked *) and where the loader
// takes each library from; a document without the block has no such line.
func TestBriefROCmInstalls(t *testing.T) {
	s := schema.NotCaptured()
	if strings.Contains(Brief(s), "rocm installs:") {
		t.Error("a rocm installs line without probe_provenance")
	}
	s.Provenance = &schema.Provenance{ROCmInstalls: &schema.ROCmInstalls{
		Installs: []schema.ROCmInstall{
			{Kind: "opt_rocm", Root: "/opt/rocm", Version: schema.Str("6.4.1"), VersionSource: schema.Str("info_version"), Described: true},
			{Kind: "distro", Root: "/usr", Version: schema.Str("5.2.3"), VersionSource: schema.Str("dpkg")},
			{Kind: "rocm_path", Root: "/x"},
		},
		Loader: []schema.LoaderResolution{
			{Library: "libamdhip64.so", Path: schema.Str("/lib/x86_64-linux-gnu/libamdhip64.so.5"), Install: schema.Str("/usr")},
			{Library: "librocblas.so", Path: schema.Str("/srv/librocblas.so.4")},
			{Library: "libhipblaslt.so"},
		},
	}}
	lines := strings.Split(Brief(s), "\n")
	want := "  rocm installs: */opt/rocm opt_rocm 6.4.1(info_version); /usr distro 5.2.3(dpkg); /x rocm_path ?  loader: libamdhip64=/usr librocblas=/srv/librocblas.so.4 libhipblaslt=-"
	if len(lines) != 32 || lines[31] != want {
		t.Errorf("%d lines, last\n got %q\nwant %q", len(lines), lines[len(lines)-1], want)
	}
}

// TestBriefROCmLine: with probe_provenance the rocm line says which
// install the rocm block describes and which others were found, so a
// ROCm outside the described root (Debian's under /usr) does not read as
// none; without it the line is the Python probe's.
func TestBriefROCmLine(t *testing.T) {
	opt := schema.ROCmInstall{Kind: "opt_rocm", Root: "/opt/rocm", Version: schema.Str("6.4.1"), VersionSource: schema.Str("info_version")}
	distro := schema.ROCmInstall{Kind: "distro", Root: "/usr", Version: schema.Str("5.2.3"), VersionSource: schema.Str("dpkg")}
	described := opt
	described.Described = true
	for _, tc := range []struct {
		name     string
		installs *schema.ROCmInstalls
		want     string
	}{
		{"no provenance", nil, "  rocm:      None (dev: None)"},
		{"nothing found", &schema.ROCmInstalls{}, "  rocm:      None (dev: None)  [describes /opt/rocm: no ROCm install found]"},
		{"Debian's only", &schema.ROCmInstalls{Installs: []schema.ROCmInstall{distro}},
			"  rocm:      None (dev: None)  [describes /opt/rocm: no install there; found: /usr distro 5.2.3(dpkg)]"},
		{"the described one only", &schema.ROCmInstalls{Installs: []schema.ROCmInstall{described}},
			"  rocm:      None (dev: None)  [describes /opt/rocm opt_rocm 6.4.1(info_version)]"},
		{"described and others", &schema.ROCmInstalls{Installs: []schema.ROCmInstall{described, distro, {Kind: "rocm_path", Root: "/x"}}},
			"  rocm:      None (dev: None)  [describes /opt/rocm opt_rocm 6.4.1(info_version); also found: /usr distro 5.2.3(dpkg), /x rocm_path ?]"},
	} {
		s := schema.NotCaptured()
		s.ROCm.Root = "/opt/rocm"
		if tc.installs != nil {
			s.Provenance = &schema.Provenance{ROCmInstalls: tc.installs}
		}
		if got := briefLine(t, s, "rocm:"); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestSummaryReasons: the summary prints the reasons after the brief,
// but the wheel install's submodule_commits reason drops its link into
// github.com/pytorch/pytorch/tree/C where C is no commit (Debian's
// "Unknown", the <git_commit> placeholder); a real commit keeps it, and
// the document keeps the reason as written.
func TestSummaryReasons(t *testing.T) {
	reason := func(c string) string { return wheelSHAsHead + c + wheelSHAsTail }
	s := schema.NotCaptured()
	s.Partial = true
	s.PartialReasons = []string{"rocm.version: x", reason("Unknown"), reason("<git_commit>"), reason("0123abcd")}
	got := Summary(s)
	want := Brief(s) + "\n\nPartial reasons:\n" +
		"  - rocm.version: x\n" +
		"  - pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; this torch records no git commit (Unknown), so there is no tree to look them up in (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)\n" +
		"  - pytorch_build.submodule_commits: wheel install -- direct SHAs not recoverable; this torch records no git commit (<git_commit>), so there is no tree to look them up in (set AORTA_PYTORCH_SRC=<src> to enable in-process probing)\n" +
		"  - " + reason("0123abcd") + "\n"
	if got != want {
		t.Errorf("summary\n got %q\nwant %q", got, want)
	}
	if s.PartialReasons[1] != reason("Unknown") {
		t.Error("Summary changed the document's reason")
	}
	s.Partial, s.PartialReasons = false, nil
	if got := Summary(s); got != Brief(s)+"\n" {
		t.Errorf("a complete document's summary: %q", got)
	}
}
