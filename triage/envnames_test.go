package triage

import (
	"slices"
	"testing"
)

func TestCollectEnvNames(t *testing.T) {
	e := CollectEnvNames([]string{"PATH=/usr/bin", "TOKEN=s3cret=x", "BUCK_SCRATCH_PATH=buck-out/tmp", "EMPTY=", "NOEQ", "=odd", "PATH=/dup", "BUCK_BUILD_ID=b1d"})
	if want := []string{"BUCK_BUILD_ID", "BUCK_SCRATCH_PATH", "EMPTY", "NOEQ", "PATH", "TOKEN"}; !slices.Equal(e.Names, want) {
		t.Errorf("names %q, want %q", e.Names, want)
	}
	if len(e.Markers) != 2 || e.Markers["BUCK_SCRATCH_PATH"] != "buck-out/tmp" || e.Markers["BUCK_BUILD_ID"] != "b1d" {
		t.Errorf("markers %v", e.Markers)
	}
}
