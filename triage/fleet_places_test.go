package triage

import (
	"strings"
	"testing"
)

// TestFleetPlaces: documents of one boot say so, with how many mount
// namespaces (containers) they came from; copies of one place are named.
func TestFleetPlaces(t *testing.T) {
	docs := []FleetDoc{
		{Name: "a", place: fleetPlace{"boot:aa", "4", "mount 9"}},
		{Name: "b", place: fleetPlace{"boot:aa", "6", "mount 10"}},
		{Name: "c", place: fleetPlace{"boot:aa", "7", "mount 11"}},
	}
	for i := range docs {
		docs[i].leaves = []leaf{{"rocm.version", `"7.2.1"`}}
	}
	r := fleetOf(len(docs), func(i int) FleetDoc { return docs[i] }, 1)
	want := []string{"3 documents come from one machine and boot (boot:aa)",
		"boot:aa: 3 documents from 3 containers or namespaces of one machine (mount namespace ids differ)"}
	if strings.Join(r.Places, "\n") != strings.Join(want, "\n") {
		t.Errorf("places %q, want %q", r.Places, want)
	}
	if r.ExitCode() != 0 {
		t.Errorf("exit %d", r.ExitCode())
	}
	// One mount namespace, one root, and a chroot in it (another root).
	docs[1].place.mnt, docs[2].place.mnt = "4", "4"
	docs[1].place.root, docs[2].place.root = "mount 9", "mount 12"
	r = fleetOf(len(docs), func(i int) FleetDoc { return docs[i] }, 1)
	if !strings.Contains(strings.Join(r.Places, "\n"), "boot:aa: 3 documents from 2 roots of one mount namespace (roots differ: chroots)") {
		t.Errorf("places %q", r.Places)
	}
	docs[2].place.root = "mount 9"
	r = fleetOf(len(docs), func(i int) FleetDoc { return docs[i] }, 1)
	if !strings.Contains(strings.Join(r.Places, "\n"), "boot:aa: 3 documents from one place (mount namespace id 4): copies or reruns") {
		t.Errorf("places %q", r.Places)
	}
}
