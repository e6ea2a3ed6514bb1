package knobs

import "testing"

func TestKnobs(t *testing.T) {
	ks := All()
	if len(ks) != len(envKnobs) || len(ks) != 137 {
		t.Fatalf("%d knobs, want 137", len(ks))
	}
	if ks[0].Name != "HIP_VISIBLE_DEVICES" || ks[0].Library != "hip-runtime" {
		t.Errorf("first knob %+v", ks[0])
	}
	for _, k := range ks {
		if k.Consumer == "same" || k.Consumer == "" {
			t.Errorf("%s: consumer %q not resolved", k.Name, k.Consumer)
		}
	}
	// NCCL_P2P_LEVEL is "same" in the registry: the previous record's.
	for i, k := range ks {
		if k.Name == "NCCL_P2P_LEVEL" && k.Consumer != ks[i-1].Consumer {
			t.Errorf("NCCL_P2P_LEVEL consumer %q, want %q", k.Consumer, ks[i-1].Consumer)
		}
	}
}
