package triage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFieldClassesDocumented: every row of the field table is named in
// docs/triage.md's "Field classes" (its pattern, or for a GPU's device
// attribute its name), so the docs' table cannot fall behind the code's.
func TestFieldClassesDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "triage.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Field classes\n")
	if !ok {
		t.Fatal("docs/triage.md has no Field classes section")
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	for _, f := range fieldClasses {
		keys := strings.Split(f.pattern, ".")
		names := []string{f.pattern, strings.Join(keys[1:], "."), keys[len(keys)-1]}
		found := false
		for _, n := range names {
			found = found || (n != "" && strings.Contains(sec, "`"+n+"`"))
		}
		if !found {
			t.Errorf("docs/triage.md, Field classes, does not name %s", f.pattern)
		}
	}
}

// TestClassOf pins a field of each class and the rows that decide
// between two: the longest pattern wins.
func TestClassOf(t *testing.T) {
	for path, want := range map[string]fieldClass{
		"rocm.version":                          classIdentity,
		"runtime_context.type":                  classPlacement,
		"execution_context.probe_invocation":    classPlacement,
		"probe_namespace":                       classPerNode,
		"nics.cx7.card.uuid":                    classPerNode,
		"probe_provenance.gpus.devices[].pci":   classPerNode,
		"probe_provenance.gpus.physical_count":  classHardware,
		"probe_provenance.rocm_installs.loader": classIdentity,
		"probe_provenance.duration_us":          classIgnored,
		"tensile_catalog.hipblaslt.menu.files":  classIgnored,
		"env_vars.HSA_XNACK":                    classIdentity,
		"env_vars.MY_SECRET":                    classIgnored,
	} {
		if got := classOf(strings.Split(path, ".")); got != want {
			t.Errorf("classOf(%s) = %d, want %d", path, got, want)
		}
	}
}
