package testdoc

import (
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestGPUs: eight MI308X in one hive, one partition each in SPX, four in
// CPX; a node other than 0 has other serials; the top-level compute
// partition is null once an edit makes the devices disagree.
func TestGPUs(t *testing.T) {
	get := func(o Object, key string) any { v, _ := o.Get(key); return v }
	for mode, parts := range map[string]string{"SPX": "8", "CPX": "32"} {
		g := GPUs(t, mode)
		if get(g, "physical_count") != pyjson.Number("8") || get(g, "partition_count") != pyjson.Number(parts) || get(g, "compute_partition") != mode {
			t.Errorf("%s: %s", mode, pyjson.EncodeCompact(g))
		}
		hives := get(g, "hives").([]any)
		if len(hives) != 1 || len(get(hives[0].(Object), "devices").([]any)) != 8 {
			t.Errorf("%s: hives %s", mode, pyjson.EncodeCompact(hives))
		}
	}
	first := func(g Object) Object { return get(g, "devices").([]any)[0].(Object) }
	if a, b := get(first(GPUs(t, "SPX")), "unique_id"), get(first(GPUsOnNode(t, 3, "SPX")), "unique_id"); a == b {
		t.Errorf("node 3 keeps node 0's unique_id %v", a)
	}
	oneCPX := func(t testing.TB, i int, d Object) Object {
		if i == 0 {
			d.Set("compute_partition", "CPX")
		}
		return d
	}
	if g := GPUs(t, "SPX", oneCPX); get(g, "compute_partition") != nil {
		t.Errorf("disagreeing devices: compute_partition %v", get(g, "compute_partition"))
	}
}
