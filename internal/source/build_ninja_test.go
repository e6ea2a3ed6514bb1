package source

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
	"testing"
	"testing/iotest"
)

var ninjaWant = []string{"torch_hip", "torch_cpu", "c10_hip", "ck_sdpa", "mslk"}

// ninjaText is "target{D:…|F:…}" per target, sorted, each set sorted.
func ninjaText(m map[string]*NinjaTarget) string {
	sorted := func(set map[string]bool) string {
		var ks []string
		for k := range set {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return strings.Join(ks, "|")
	}
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + "{D:" + sorted(m[n].Defines) + " F:" + sorted(m[n].Flags) + "}")
	}
	return b.String()
}

func TestParseNinja(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"fixture", "build x.o: HIP_COMPILER__torch_hip_unscanned src/x.hip\n  DEFINES = -Dtorch_hip_EXPORTS -DUSE_ROCM_CK_SDPA\n  FLAGS = -O3 --offload-arch=gfx942\n",
			"torch_hip{D:-Dtorch_hip_EXPORTS -DUSE_ROCM_CK_SDPA F:-O3 --offload-arch=gfx942}"},
		{"non-HIP rule ignored", "build a.o: CXX_COMPILER__torch_cpu a.cpp\n  DEFINES = -Dtorch_cpu_EXPORTS -DX\n", ""},
		{"target not of interest", "build a.o: HIP_COMPILER__x a.hip\n  DEFINES = -Dgloo_hip_EXPORTS -DX\n  FLAGS = --offload-arch=gfx90a\n", ""},
		{"continuation joins with a space", "build a.o: HIP_COMPILER__c a.hip\n  DEFINES = -Dc10_hip_EXPORTS $\n-DV=2\n  FLAGS = -ffast-math $\n--offload-arch=gfx942\r\n",
			"c10_hip{D:-Dc10_hip_EXPORTS  -DV=2 F:-ffast-math  --offload-arch=gfx942}"},
		{"two blocks, both kept", "build a.o: HIP_COMPILER__c a.hip\n  DEFINES = -Dc10_hip_EXPORTS -DV=2\nbuild b.o: HIP_COMPILER__c b.hip\n  DEFINES = -Dc10_hip_EXPORTS -DV=1\n  X = y\n  FLAGS = -O2\n",
			"c10_hip{D:-Dc10_hip_EXPORTS -DV=1|-Dc10_hip_EXPORTS -DV=2 F:-O2}"},
		{"FLAGS outside the window is ignored", "build a.o: HIP_COMPILER__c a.hip\n  DEFINES = -Dmslk_EXPORTS\nnot indented\n  FLAGS = --offload-arch=gfx1\n", "mslk{D:-Dmslk_EXPORTS F:}"},
		{"greedy IDENT", "build a.o: HIP_COMPILER x\n  DEFINES = -Dtorch_hip_EXPORTS_EXPORTS\n", ""},
		{"EXPORTS needs a boundary", "build a.o: HIP_COMPILER x\n  DEFINES = -Dtorch_hip_EXPORTSX -Dck_sdpa_EXPORTS\n", "ck_sdpa{D:-Dtorch_hip_EXPORTSX -Dck_sdpa_EXPORTS F:}"},
		{"trailing $ at EOF", "build a.o: HIP_COMPILER x\n  DEFINES = -Dtorch_cpu_EXPORTS -DA=1 $", "torch_cpu{D:-Dtorch_cpu_EXPORTS -DA=1  F:}"},
		{"three spaces is not DEFINES", "build a.o: HIP_COMPILER x\n   DEFINES = -Dtorch_cpu_EXPORTS\n", ""},
		{"not UTF-8", "build a.o: HIP_COMPILER x\n  DEFINES = -Dtorch_cpu_EXPORTS -DA=\xff\n", "torch_cpu{D:-Dtorch_cpu_EXPORTS -DA=\ufffd F:}"},
		{"empty", "", ""},
	} {
		// One byte per read: every line break and UTF-8 sequence is cut.
		coll, err := ParseNinja(iotest.OneByteReader(strings.NewReader(tc.in)), ninjaWant)
		if err != nil {
			t.Fatal(err)
		}
		if got := ninjaText(coll); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestNinjaRead: through the FS; an unreadable or irregular file is
// ErrRead over the machine's error.
func TestNinjaRead(t *testing.T) {
	src := fakeFS(t, "-- b/build.ninja --\nbuild x.o: HIP_COMPILER__c x.hip\n  DEFINES = -Dmslk_EXPORTS\n-- d/build.ninja [dir] --\n")
	coll, err := src.Ninja("/b/build.ninja", ninjaWant)
	if err != nil || ninjaText(coll) != "mslk{D:-Dmslk_EXPORTS F:}" {
		t.Errorf("Ninja = %s, %v", ninjaText(coll), err)
	}
	for p, want := range map[string]error{"/none/build.ninja": fs.ErrNotExist, "/d/build.ninja": nil} {
		coll, err := src.Ninja(p, ninjaWant)
		if coll != nil || !errors.Is(err, ErrRead) || want != nil && !errors.Is(err, want) {
			t.Errorf("Ninja(%s) = %v, %v; want ErrRead", p, coll, err)
		}
	}
}

func FuzzParseNinja(f *testing.F) {
	f.Add("build x.o: HIP_COMPILER__torch_hip_unscanned src/x.hip\n  DEFINES = -Dtorch_hip_EXPORTS -DUSE_ROCM_CK_SDPA\n  FLAGS = -O3 --offload-arch=gfx942\n")
	f.Add("build a.o: HIP_COMPILER x\n  DEFINES = -Dck_sdpa_EXPORTS $\n")
	f.Fuzz(func(t *testing.T, s string) {
		coll, err := ParseNinja(strings.NewReader(s), ninjaWant)
		if err != nil {
			t.Fatal(err)
		}
		for name, tg := range coll {
			if len(tg.Defines) == 0 || !strings.Contains(s, name+"_EXPORTS") {
				t.Fatalf("target %q without its DEFINES", name)
			}
		}
	})
}
