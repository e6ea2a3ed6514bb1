package knobs

import (
	"fmt"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
)

func TestEnvKnobRegistry(t *testing.T) {
	if len(envKnobs) != 137 {
		t.Fatalf("%d knobs, schema 1.16 has 137", len(envKnobs))
	}
	seen := map[string]bool{}
	for i, k := range envKnobs {
		if seen[k.name] {
			t.Errorf("duplicate knob %s", k.name)
		}
		seen[k.name] = true
		if k.library == "" || k.category == "" || k.sourceReference == "" || k.referenceBuild == "" {
			t.Errorf("knob %d %s lacks metadata", i+1, k.name)
		}
	}
	for pos, name := range map[int]string{1: "HIP_VISIBLE_DEVICES", 60: "LD_LIBRARY_PATH", 108: "TENSILE_ADAPTIVE_GEMM_NTAB_ALGO", 137: "TENSILE_BENCHMARK"} {
		if envKnobs[pos-1].name != name {
			t.Errorf("knob %d is %s, want %s", pos, envKnobs[pos-1].name, name)
		}
	}
	for _, absent := range []string{"AMP_DTYPE", "USE_ROCM_CK_SDPA", "CONDA_DEFAULT_ENV", "SINGULARITY_NAME", "ROCBLAS_API_BENCH"} {
		if seen[absent] {
			t.Errorf("%s must not be a knob", absent)
		}
	}
}

// TestEnvKnobsDoc keeps docs/env-knobs.md generated from the one table
// (go test ./internal/knobs -run TestEnvKnobsDoc -update rewrites it).
func TestEnvKnobsDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString("# env_vars: the knob registry\n\n")
	b.WriteString("`env_vars` records exactly these 137 variables of the schema-1.16 registry,\n")
	b.WriteString("in this order: the raw value, `\"\"` when set but empty, null when unset.\n")
	b.WriteString("No other variable is ever written. Generated from internal/knobs/registry.go.\n")
	b.WriteString("The source references name a script and pull requests of aorta, the Python\n")
	b.WriteString("probe's repository, where the registry was audited; they are not in this one.\n\n")
	b.WriteString("| # | name | library | category | reaches | source reference | reference build |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for i, k := range envKnobs {
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s | %s | %s |\n", i+1, k.name, k.library, k.category, k.consumer, k.sourceReference, k.referenceBuild)
	}
	golden.Compare(t, "../../docs/env-knobs.md", []byte(b.String()))
}
