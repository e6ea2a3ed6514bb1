package triage

import (
	"regexp"
	"slices"
	"testing"
)

// TestFingerprintsFollowDiff: a field edit changes the hash of exactly the
// groups diff ranks its difference in (Compare's Differences), and a
// field diff does not compare (capture time, namespace, timings) changes
// none.
func TestFingerprintsFollowDiff(t *testing.T) {
	base := doc(t, "A", "mi350-host.json")
	cases := []struct {
		name  string
		edits []edit
		want  []Group
	}{
		{"rocm version", []edit{set("rocm.version", "7.3.0")}, []Group{GroupROCm}},
		{"hip", []edit{set("hip.version", "7.3.1-x")}, []Group{GroupROCm}},
		{"driver", []edit{set("amdgpu_driver.module_version", "6.99")}, []Group{GroupDriver}},
		{"gpus", []edit{set("gpu_arch.agent_count", num("4"))}, []Group{GroupGPU}},
		{"library", []edit{set("rocblas.lib_hash", "sha256:00")}, []Group{GroupLibraries}},
		{"catalog", []edit{set("tensile", nil)}, []Group{GroupLibraries}},
		{"python", []edit{set("pytorch_version", "2.9.1")}, []Group{GroupPython}},
		{"knob", []edit{set("env_vars.HSA_XNACK", "1")}, []Group{GroupEnv}},
		{"off-registry variable", []edit{set("env_vars.NOT_A_KNOB", "1")}, nil},
		{"host", []edit{set("host.glibc_version", "2.39")}, []Group{GroupHost}},
		{"two groups", []edit{set("rocm.version", "7.3.0"), set("env_vars.HSA_XNACK", "1")}, []Group{GroupROCm, GroupEnv}},
		{"capture only", []edit{set("captured_at", "2027-01-01T00:00:00Z"), set("probe_namespace", "mnt:ff"),
			set("probe_provenance.duration_us", num("12345")), set("partial", false)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			other := doc(t, "B", "mi350-host.json", c.edits...)
			var got []Group
			fa, fb := Fingerprints(base), Fingerprints(other)
			if len(fa) != len(FingerprintGroups) || len(fb) != len(fa) {
				t.Fatalf("%d and %d fingerprints, want %d", len(fa), len(fb), len(FingerprintGroups))
			}
			for i := range fa {
				if fa[i].Group != FingerprintGroups[i] || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(fa[i].Hash) {
					t.Errorf("fingerprint %d: %+v", i, fa[i])
				}
				if fa[i] != fb[i] {
					got = append(got, fa[i].Group)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("groups whose hash changed: %v, want %v", got, c.want)
			}
			// diff ranks the same differences into the same groups.
			var ranked []Group
			for _, d := range Compare(base, other).Differences {
				if !slices.Contains(ranked, d.Group) && slices.Contains(FingerprintGroups, d.Group) {
					ranked = append(ranked, d.Group)
				}
			}
			slices.SortFunc(ranked, func(a, b Group) int {
				return slices.Index(FingerprintGroups, a) - slices.Index(FingerprintGroups, b)
			})
			if !slices.Equal(ranked, c.want) {
				t.Errorf("diff ranks differences in %v, the fingerprints changed in %v", ranked, c.want)
			}
		})
	}
}

// TestFingerprintsHardware: the hardware group's hash follows
// probe_provenance.gpus as diff ranks it: another partition mode changes
// it (and gpu_arch's, which the enumerator then reports otherwise), the
// same GPUs on another node (other serials and addresses) change nothing.
func TestFingerprintsHardware(t *testing.T) {
	base := doc(t, "A", "mi350-host.json", setGPUs(gpus(t, "CPX")))
	changed := func(other *Document) []Group {
		var got []Group
		fa, fb := Fingerprints(base), Fingerprints(other)
		for i := range fa {
			if fa[i] != fb[i] {
				got = append(got, fa[i].Group)
			}
		}
		return got
	}
	if got := changed(doc(t, "B", "mi350-host.json", setGPUs(gpus(t, "SPX")))); !slices.Equal(got, []Group{GroupHardware}) {
		t.Errorf("CPX -> SPX changed %v, want [hardware]", got)
	}
	if got := changed(doc(t, "B", "mi350-host.json", setGPUs(gpusOnNode(t, 1, "CPX")))); got != nil {
		t.Errorf("the same GPUs on another node changed %v, want none", got)
	}
}
