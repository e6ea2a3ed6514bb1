package knobs

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

// update is the -update flag of `go test ./... -update`: here it rewrites
// docs/env-knobs.md, generated from the registry.
var update = flag.Bool("update", false, "rewrite docs/env-knobs.md from the registry")

// compareGolden compares got with the file golden, or writes it under -update.
func compareGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./internal/knobs -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs: go test ./internal/knobs -run TestEnvKnobsDoc -update rewrites it", golden)
	}
}
