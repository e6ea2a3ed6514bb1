package triage

import (
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
)

// TestHardwareAddressFree: the same boards in other slots, and the same
// values on other devices, are the same hardware for --fleet and the
// fingerprints: no address is in a comparison key.
func TestHardwareAddressFree(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	a := doc(t, "a", g, placed, proven, setGPUs(gpus(t, "CPX", onDevice(6, "numa_node", pyjson.Number("0")), onDevice(1, "numa_node", pyjson.Number("1")))))
	moved := gpus(t, "CPX", onDevice(6, "pci", "0001:a7:00.0"))
	for k, e := range moved {
		if e.Key == "hives" {
			h := leaveHive(e.Value.([]any), "0001:a5:00.0")
			members, _ := h[0].(testdoc.Object).Get("devices")
			moved[k].Value = []any{testdoc.Object{{Key: "hive_id", Value: "7"}, {Key: "devices", Value: append(members.([]any), "0001:a7:00.0")}}}
		}
	}
	b := doc(t, "b", g, placed, testdoc.Identity("boot:bb", testdoc.HostIDs, nil), setGPUs(moved))
	if ds := hardwareDifferences(a, b); len(ds) != 0 {
		t.Errorf("differences %q", keys(ds))
	}
	fa, fb := Fingerprints(a), Fingerprints(b)
	if !slices.Equal(fa, fb) {
		t.Errorf("fingerprints differ:\n%v\n%v", fa, fb)
	}
	for _, l := range gpuLeaves(b) {
		if strings.Contains(l.value, ":00.0") {
			t.Errorf("an address in %s = %s", l.path, l.value)
		}
	}
}

// TestHardwareDeviceReasons: a device's reasons (probe/gpus_group.go,
// probe/amdgpu_vocab.go) quote paths, node ids and addresses; they are
// per node, never compared or fingerprinted. The null value they explain
// is.
func TestHardwareDeviceReasons(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	a := doc(t, "a", g, placed, proven, setGPUs(gpus(t, "CPX")))
	why := []any{"unique_id 7 is on 8 PCI devices: 0001:a5:00.0 …"}
	b := doc(t, "b", g, placed, testdoc.Identity("boot:bb", testdoc.HostIDs, nil), setGPUs(gpus(t, "CPX", onDevice(2, "reasons", why))))
	if ds := hardwareDifferences(a, b); len(ds) != 0 {
		t.Errorf("reasons alone: differences %q", keys(ds))
	}
	if fa, fb := Fingerprints(a), Fingerprints(b); !slices.Equal(fa, fb) {
		t.Errorf("reasons alone: fingerprints differ:\n%v\n%v", fa, fb)
	}
	c := doc(t, "c", g, placed, testdoc.Identity("boot:cc", testdoc.HostIDs, nil), setGPUs(gpus(t, "CPX", onDevice(2, "reasons", why), onDevice(2, "compute_partition", nil))))
	if ds := hardwareDifferences(a, c); !slices.Contains(keys(ds), devicesKey+"compute_partition") {
		t.Errorf("a null partition mode with its reason: differences %q", keys(ds))
	}
}
