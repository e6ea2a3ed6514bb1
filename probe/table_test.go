package probe

import (
	"context"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/schema"
)

// TestProbeTable: every row is named once and every awaited key names a
// document row; the rows of probe_provenance alone are gpus (read beside
// the probes, with its unfinished block) and rocm_installs (read last),
// and a collection without provenance has neither.
func TestProbeTable(t *testing.T) {
	rows := probeTable()
	kinds := map[string]rowKind{}
	for _, p := range rows {
		if _, dup := kinds[p.name]; dup {
			t.Errorf("row %s twice", p.name)
		}
		kinds[p.name] = p.kind
		if (p.kind == besideRow) != (p.unfinished != nil) {
			t.Errorf("row %s: kind %d, unfinished set %v", p.name, p.kind, p.unfinished != nil)
		}
	}
	if kinds[gpusBlock] != besideRow || kinds[rocmInstallsBlock] != lastRow {
		t.Errorf("gpus row %d, rocm_installs row %d", kinds[gpusBlock], kinds[rocmInstallsBlock])
	}
	for _, key := range []string{string(theRockBlock), string(hipBLASLtBlock), string(rocBLASBlock),
		string(composableKernelBlock), string(tensileBlock), string(miopenBlock), string(buildSystemBlock)} {
		if k, ok := kinds[key]; !ok || k != documentRow {
			t.Errorf("key %s: row kind %d, found %v", key, k, ok)
		}
	}
	for _, noProv := range []bool{false, true} {
		c := newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}, NoProvenance: noProv})
		_, gpus := c.slots[gpusBlock]
		_, installs := c.slots[rocmInstallsBlock]
		if gpus == noProv || installs == noProv {
			t.Errorf("NoProvenance %v: gpus row %v, rocm_installs row %v", noProv, gpus, installs)
		}
		for name, sl := range c.slots {
			if c.table[sl.index].name != name {
				t.Errorf("NoProvenance %v: slot %s at row %s", noProv, name, c.table[sl.index].name)
			}
		}
	}
}

// TestUnfinishedGPUsRow: the gpus row's block when the collection ends
// before it names the cause and claims no count.
func TestUnfinishedGPUsRow(t *testing.T) {
	for _, p := range probeTable() {
		if p.name != gpusBlock {
			continue
		}
		g := p.unfinished("deadline of 1s exceeded").(schema.GPUs)
		if g.Reason == nil || *g.Reason != "not finished (deadline of 1s exceeded)" || g.PhysicalCount != nil || len(g.Devices) != 0 {
			t.Errorf("unfinished block %+v", g)
		}
		return
	}
	t.Fatal("no gpus row")
}
