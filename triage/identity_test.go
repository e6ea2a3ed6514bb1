package triage

import (
	"strings"
	"testing"

	_ "aorta-probe/internal/golden"
)

// TestCompareRoot: the level, grade and placement row of a chroot pair
// (every namespace shared, another root directory of the same mount) and
// of an older kernel's (device and inode only).
func TestCompareRoot(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	chroot := rootEdit(n("2147483649"), "STATX_MNT_ID_UNIQUE", "259:1", n("1835009"))
	for _, c := range []struct {
		name         string
		a, b         []edit
		level, grade string
		says         string
	}{
		{"chroot", []edit{placed, proven, hostRoot}, []edit{placed, proven, chroot}, LevelAnotherRoot, GradeProof,
			"another root: another directory of the same mount (a chroot)"},
		{"another mount", []edit{placed, proven, hostRoot}, []edit{placed, proven, rootEdit(n("2147483700"), "STATX_MNT_ID_UNIQUE", "259:1", n("2"))},
			LevelAnotherRoot, GradeProof, "another root: another mount of /"},
		{"older kernel", []edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1"}), rootEdit(nil, nil, "259:1", n("2"))},
			[]edit{placed, identityEdit("boot:aa", nil, []any{"mnt:1"}), rootEdit(nil, nil, "259:1", n("7"))},
			LevelAnotherRoot, GradeAdvisory, "another root directory, or another boot (device and inode)"},
		{"another boot", []edit{placed, proven, hostRoot}, []edit{placed, identityEdit("boot:bb", hostIDs, nil), chroot},
			LevelAnotherBoot, GradeProof, "mount ids of different boots are not comparable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(doc(t, "a.json", g, c.a...), doc(t, "b.json", g, c.b...))
			if r.Level != c.level || r.Grade != c.grade {
				t.Errorf("level %s grade %s, want %s %s (because %q)", r.Level, r.Grade, c.level, c.grade, r.Because)
			}
			var row *PlacementField
			for i := range r.Placement {
				if r.Placement[i].Key == "probe_provenance.identity.root" {
					row = &r.Placement[i]
				}
			}
			if row == nil || !strings.HasPrefix(row.Says, c.says) {
				t.Errorf("root row %+v, want it to say %q", row, c.says)
			}
			checkRenders(t, r)
		})
	}
}

// TestIdentityWithoutBoot: namespace ids are small counters (every boot
// has a mount namespace 4), so equal ids prove nothing without both boot
// fingerprints; different ids still prove different places.
func TestIdentityWithoutBoot(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	ino := []any{"mnt:1", "net:2"}
	r := Compare(doc(t, "a", g, placed, identityEdit("boot:aa", hostIDs, ino)), doc(t, "b", g, placed, identityEdit(nil, hostIDs, ino)))
	if r.Verdict != SamePlace+Advisory || r.Grade != GradeAdvisory {
		t.Errorf("equal ids, one boot unknown: %q %q, want advisory", r.Verdict, r.Grade)
	}
	r = Compare(doc(t, "a", g, placed, identityEdit("boot:aa", hostIDs, ino)), doc(t, "b", g, placed, identityEdit(nil, withIDs(map[string]string{"mnt": "9"}), ino)))
	if r.Verdict != DifferentPlaces || len(r.Because) == 0 || r.Because[0] != "another namespace, or another boot: mnt" {
		t.Errorf("different ids, one boot unknown: %q %q", r.Verdict, r.Because)
	}
	r = Compare(doc(t, "a", g, placed, proven), doc(t, "b", g, placed, identityEdit("boot:bb", hostIDs, nil)))
	for _, p := range r.Placement {
		if p.Key == "probe_provenance.identity.mnt" && (p.State != StateNotComparable || p.Role != RoleInfo) {
			t.Errorf("ids of two boots: %+v", p)
		}
	}
}
