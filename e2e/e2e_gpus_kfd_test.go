package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

// The gpus block through the built binary over kfd and amdgpu trees built
// in the test (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are):
// what a user runs with --root.

// probeGPUs runs the binary over root with --no-python and returns its
// probe_provenance.gpus.
func probeGPUs(t *testing.T, bin, root string) schema.GPUs {
	t.Helper()
	code, out, errs := runProbe(t, bin, t.TempDir(), baseEnv(t), "--root", root, "--no-python", "--field", "probe_provenance.gpus")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var g schema.GPUs
	if err := pyjson.Unmarshal(out, &g); err != nil {
		t.Fatalf("probe_provenance.gpus does not decode: %v\n%.400s", err, out)
	}
	return g
}

func show(v any) string { return string(pyjson.EncodeCompact(v)) }

// TestE2EGPUsUnparsableNode: a GPU whose kfd properties cannot be parsed
// is never counted as a CPU: physical_count and partition_count are null
// and the reason names the node and the line (issue 32 item 1; the first
// case is the repro, which gave physical_count 0 and no reason).
func TestE2EGPUsUnparsableNode(t *testing.T) {
	bin := e2eBinary(t)
	const nodes = "sys/class/kfd/kfd/topology/nodes/"
	for _, tc := range []struct{ name, node1, reason string }{
		{"crlf", "simd_count 304\r\ngfx_target_version 90402\r\n",
			`/sys/class/kfd/kfd/topology/nodes/1/properties line 1 ('simd_count 304\r') has a value that is not an unsigned decimal (and 1 more lines not as kfd writes them): node 1 might be a GPU, so no count is sure`},
		{"hex", "simd_count 0x130\ngfx_target_version 90402\n", `nodes/1/properties line 1 ('simd_count 0x130') has a value that is not an unsigned decimal`},
		{"negative", "simd_count 304\ngfx_target_version -1\n", `nodes/1/properties line 2 ('gfx_target_version -1') has a value`},
		{"names without values", "simd_count\ngfx_target_version\n", `nodes/1/properties line 1 ('simd_count') is not a name and a value`},
		{"empty", "", `nodes/1/properties is empty: node 1 might be a GPU, so no count is sure`},
		{"mid-rewrite", "simd_count 304\ngfx_tar", `nodes/1/properties line 2 ('gfx_tar') is cut short (no line end)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testtree.TempDir(t)
			testtree.Files(t, root, map[string]string{
				nodes + "0/properties": "simd_count 0\ngfx_target_version 0\n",
				nodes + "1/properties": tc.node1,
			})
			g := probeGPUs(t, bin, root)
			if g.PhysicalCount != nil || g.PartitionCount != nil || g.Reason == nil || !strings.Contains(*g.Reason, tc.reason) {
				t.Errorf("physical_count %s, partition_count %s, reason %s\nwant null, null and a reason with %s",
					show(g.PhysicalCount), show(g.PartitionCount), show(g.Reason), tc.reason)
			}
		})
	}
}

// mi308xPropsRoot expands the real MI308X root (testdata/roots/gpus-mi308x-cpx.txtar)
// and rewrites each kfd GPU node's properties with edit.
func mi308xPropsRoot(t *testing.T, edit func(props string) string) string {
	t.Helper()
	root := testtree.TempDir(t)
	if _, err := fakeroot.Materialize("testdata/roots/gpus-mi308x-cpx.txtar", root); err != nil {
		t.Fatal(err)
	}
	props, err := filepath.Glob(filepath.Join(root, "sys/class/kfd/kfd/topology/nodes/*/properties"))
	if err != nil || len(props) != 34 {
		t.Fatalf("%d nodes (%v)", len(props), err)
	}
	for _, p := range props {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestE2EGPUsSharedUniqueID: every kfd GPU node of the real MI308X root
// given the same unique_id is still 8 GPUs of 4
// partitions on 8 PCI devices, each saying why, where it collapsed into
// "1 × gfx942, 32 partitions" (issue 31 item 5, issue 32 item 6).
func TestE2EGPUsSharedUniqueID(t *testing.T) {
	bin := e2eBinary(t)
	uid := regexp.MustCompile(`(?m)^unique_id \d+$`)
	root := mi308xPropsRoot(t, func(p string) string { return uid.ReplaceAllString(p, "unique_id 598046273873802902") })
	g := probeGPUs(t, bin, root)
	if show(g.PhysicalCount) != "8" || show(g.PartitionCount) != "32" || g.Reason != nil || len(g.Hives) != 1 || len(g.Hives[0].Devices) != 8 {
		t.Fatalf("physical_count %s, partition_count %s, reason %s, hives %s",
			show(g.PhysicalCount), show(g.PartitionCount), show(g.Reason), show(g.Hives))
	}
	buses := map[string]bool{}
	for _, d := range g.Devices {
		buses[*d.PCI] = true
		want := `["unique_id 598046273873802902 is on 8 PCI devices: a GPU is one PCI device, so each is counted apart"]`
		if len(d.Partitions) != 4 || show(d.Reasons) != want || show(d.UniqueID) != `"598046273873802902"` {
			t.Errorf("%s: %d partitions, unique_id %s, reasons %s", *d.PCI, len(d.Partitions), show(d.UniqueID), show(d.Reasons))
		}
	}
	if len(buses) != 8 {
		t.Errorf("%d PCI addresses among the devices", len(buses))
	}
}

// TestE2EGPUsOutOfVocabulary: a partition mode or link width the kernel
// never writes is null with the device's reason quoting it, and the
// block's compute_partition is no longer that of all devices (issue 32
// item 6); the other devices keep theirs and say nothing.
func TestE2EGPUsOutOfVocabulary(t *testing.T) {
	bin := e2eBinary(t)
	root := mi308xPropsRoot(t, func(p string) string { return p })
	dev := "sys/devices/pci0000:00/0000:00:01.1/0000:0a:00.0/"
	if _, err := os.Stat(filepath.Join(root, dev, "current_compute_partition")); err != nil {
		t.Fatal(err)
	}
	testtree.Files(t, root, map[string]string{dev + "current_compute_partition": "XYZ\n", dev + "current_link_width": "-16\n"})
	g := probeGPUs(t, bin, root)
	d := g.Devices[0]
	want := `["/sys/class/drm/renderD128/device/current_compute_partition is 'XYZ', not a mode amdgpu writes (SPX, DPX, TPX, QPX, CPX, UNKNOWN)", ` +
		`"/sys/class/drm/renderD128/device/current_link_width is '-16', not a lane count the PCI core writes (0 to 63)"]`
	if *d.PCI != "0000:0a:00.0" || d.ComputePartition != nil || d.PCIe.CurrentLinkWidth != nil || show(d.Reasons) != want {
		t.Errorf("%s: compute_partition %s, current_link_width %s, reasons %s\nwant reasons %s",
			*d.PCI, show(d.ComputePartition), show(d.PCIe.CurrentLinkWidth), show(d.Reasons), want)
	}
	if g.ComputePartition != nil || show(g.MemoryPartition) != `"NPS1"` || show(g.PhysicalCount) != "8" {
		t.Errorf("block: compute %s, memory %s, physical %s", show(g.ComputePartition), show(g.MemoryPartition), show(g.PhysicalCount))
	}
	for _, d := range g.Devices[1:] {
		if show(d.ComputePartition) != `"CPX"` || d.Reasons != nil {
			t.Errorf("%s: compute %s, reasons %s", *d.PCI, show(d.ComputePartition), show(d.Reasons))
		}
	}
}
