package probe

import (
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/internal/testdoc"
	"aorta-probe/schema"
)

func TestParseCMakeCacheFixture(t *testing.T) {
	text := "// header\n# c\nUSE_FLASH_ATTENTION:BOOL=ON\nUSE_ROCM_CK_SDPA:BOOL=ON\r\nBUILD_TYPE:STRING=Release\n" +
		"FLASH_NAMESPACE:STRING=pytorch_flash\nBORING_VAR_NOT_ALLOWLISTED:STRING=keep-out\nUSE_NUMA:BOOL=OFF\n" +
		"\nlower:BOOL=ON\nUSE_X:bool=ON\nUSE_NUMA:BOOL=ON\nHIP_VERSION:STRING=a=b\nUSE_EMPTY:STRING=\n"
	got := testdoc.MapText(parseCMakeCache(text), func(e schema.CMakeCacheEntry) string { return e.Type + ":" + e.Value })
	want := "BUILD_TYPE=STRING:Release;FLASH_NAMESPACE=STRING:pytorch_flash;HIP_VERSION=STRING:a=b;USE_EMPTY=STRING:;" +
		"USE_FLASH_ATTENTION=BOOL:ON;USE_NUMA=BOOL:ON;USE_ROCM_CK_SDPA=BOOL:ON;"
	if got != want {
		t.Errorf("cmake entries\n got %s\nwant %s", got, want)
	}
	if m := parseCMakeCache(""); m == nil || len(m) != 0 {
		t.Errorf("empty cache: %v (want {})", m)
	}
}

func ninjaTargetText(m pyjson.Map[schema.NinjaTarget]) string {
	var b strings.Builder
	for _, e := range m {
		b.WriteString(e.Key + "{D:" + testdoc.MapText(e.Value.Defines, golden.OrNull[string]))
		for _, u := range e.Value.UseDefinesPresent {
			if u.Value {
				b.WriteString(" +" + u.Key)
			}
		}
		for _, c := range e.Value.CodegenFlagsPresent {
			if c.Value {
				b.WriteString(" " + c.Key)
			}
		}
		b.WriteString(" archs=" + strings.Join(e.Value.OffloadArchs, ",") + "}")
	}
	return b.String()
}

func TestParseNinjaFixture(t *testing.T) {
	in := "build x.o: HIP_COMPILER__torch_hip_unscanned src/x.hip\n" +
		"  DEFINES = -Dtorch_hip_EXPORTS -DUSE_ROCM_CK_SDPA\n" +
		"  FLAGS = -O3 --offload-arch=gfx942\n"
	coll, err := source.ParseNinja(strings.NewReader(in), ninjaTargets)
	if err != nil {
		t.Fatal(err)
	}
	got := ninjaTargetText(modernTargets(coll))
	want := "torch_hip{D:USE_ROCM_CK_SDPA=null;torch_hip_EXPORTS=null; +USE_ROCM_CK_SDPA archs=gfx942}"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestParseNinja(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"non-HIP rule ignored", "build a.o: CXX_COMPILER__torch_cpu a.cpp\n  DEFINES = -Dtorch_cpu_EXPORTS -DX\n", ""},
		{"target not of interest", "build a.o: HIP_COMPILER__x a.hip\n  DEFINES = -Dgloo_hip_EXPORTS -DX\n  FLAGS = --offload-arch=gfx90a\n", ""},
		{"continuation and two blocks, later sorted block wins",
			"build a.o: HIP_COMPILER__c a.hip\n  DEFINES = -Dc10_hip_EXPORTS $\n-DV=2 -DFLASH_NAMESPACE=pytorch_flash\n  FLAGS = -ffast-math --offload-arch=gfx950 $\n--offload-arch=gfx942\n" +
				"build b.o: HIP_COMPILER__c b.hip\n  DEFINES = -Dc10_hip_EXPORTS -DV=1\n  X = y\n  FLAGS = -fno-fast-math -fdenormal-fp-math=ieee --offload-arch=gfx942\n",
			"c10_hip{D:FLASH_NAMESPACE=pytorch_flash;V=1;c10_hip_EXPORTS=null; +FLASH_NAMESPACE -ffast-math -fno-fast-math -fdenormal-fp-math archs=gfx942,gfx950}"},
		{"FLAGS outside the window is ignored",
			"build a.o: HIP_COMPILER__c a.hip\n  DEFINES = -Dmslk_EXPORTS\nnot indented\n  FLAGS = --offload-arch=gfx1\n",
			"mslk{D:mslk_EXPORTS=null; archs=}"},
		{"greedy IDENT", "build a.o: HIP_COMPILER x\n  DEFINES = -Dtorch_hip_EXPORTS_EXPORTS\n", ""},
		{"EXPORTS needs a boundary", "build a.o: HIP_COMPILER x\n  DEFINES = -Dtorch_hip_EXPORTSX -Dck_sdpa_EXPORTS\n", "ck_sdpa{D:ck_sdpa_EXPORTS=null;torch_hip_EXPORTSX=null; archs=}"},
		{"trailing $ at EOF", "build a.o: HIP_COMPILER x\n  DEFINES = -Dtorch_cpu_EXPORTS -DA=1 $", "torch_cpu{D:A=1;torch_cpu_EXPORTS=null; archs=}"},
		{"three spaces is not DEFINES", "build a.o: HIP_COMPILER x\n   DEFINES = -Dtorch_cpu_EXPORTS\n", ""},
		{"empty", "", ""},
	} {
		coll, err := source.ParseNinja(strings.NewReader(tc.in), ninjaTargets)
		if err != nil {
			t.Fatal(err)
		}
		if got := ninjaTargetText(modernTargets(coll)); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestFindHIPBlobs(t *testing.T) {
	text := "set(HIP_HIPCC_FLAGS -std=c++17;-DA=1 -DB=2 -DC=3 -DUSE_ROCM_CK_SDPA;-Wall)\n" +
		"  set ( HIP_CLANG_FLAGS_RELEASE -O3\n --offload-arch=gfx942 )  \n" +
		"set(HIP_HIPCC_FLAGS -DX) trailing\n" +
		"set(OTHER_FLAGS -DY)\n"
	blobs := findHIPBlobs(text)
	if len(blobs) != 2 {
		t.Fatalf("blobs %q", blobs)
	}
	set := map[string]bool{}
	for _, b := range blobs {
		set[b] = true
	}
	got := ninjaTargetText(pyjson.Map[schema.NinjaTarget]{{Key: "ck_sdpa", Value: legacyTarget(set)}})
	want := "ck_sdpa{D:A=1;B=2;C=3;USE_ROCM_CK_SDPA=null; +USE_ROCM_CK_SDPA archs=gfx942}"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func FuzzParseNinja(f *testing.F) {
	f.Add("build x.o: HIP_COMPILER__torch_hip_unscanned src/x.hip\n  DEFINES = -Dtorch_hip_EXPORTS -DUSE_ROCM_CK_SDPA\n  FLAGS = -O3 --offload-arch=gfx942\n")
	f.Add("set(HIP_HIPCC_FLAGS -DA=1;-DB)\n")
	f.Fuzz(func(t *testing.T, s string) {
		coll, err := source.ParseNinja(strings.NewReader(s), ninjaTargets)
		if err != nil {
			t.Fatal(err)
		}
		for name, tg := range modernTargets(coll) {
			_ = name
			if len(tg.Value.UseDefinesPresent) != 27 || len(tg.Value.CodegenFlagsPresent) != 7 {
				t.Fatal("shape")
			}
		}
		_ = findHIPBlobs(s)
		_ = parseCMakeCache(s)
	})
}
