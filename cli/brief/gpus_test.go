package brief

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
	"aorta-probe/schema"
)

// fixtureGPUs is testdoc.GPUs (8 × MI308X, the shared kfd fixture) as the
// schema reads it.
func fixtureGPUs(t *testing.T, mode string, edits ...testdoc.GPUDeviceEdit) *schema.GPUs {
	t.Helper()
	var g schema.GPUs
	if err := pyjson.Unmarshal(string(pyjson.Encode(testdoc.GPUs(t, mode, edits...))), &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// mi210 is 8 × MI210 in two XGMI hives of 4, like the shared fixture
// mi210-xgmi-pcie: no partition modes, one partition per GPU.
func mi210() *schema.GPUs {
	g := &schema.GPUs{PhysicalCount: schema.Int(8), PartitionCount: schema.Int(8)}
	var hive [2][]string
	for i := range 8 {
		pci := []string{"0000:03:00.0", "0000:23:00.0", "0000:26:00.0", "0000:43:00.0", "0000:63:00.0", "0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0"}[i]
		hive[i/4] = append(hive[i/4], pci)
		vram := int64(68702699520)
		g.Devices = append(g.Devices, schema.GPUDevice{
			PCI: schema.Str(pci), GfxTarget: schema.Str("gfx90a"), ProductName: schema.Str("AMD Instinct MI210"),
			VBIOSVersion: schema.Str("113-D67301-063"), VRAMBytes: &vram, DRMDevice: schema.Str("/sys/class/drm/renderD128/device"),
			PCIe: schema.GPUPCIe{CurrentLinkSpeed: schema.Str("16.0 GT/s PCIe"), CurrentLinkWidth: schema.Int(16),
				MaxLinkSpeed: schema.Str("16.0 GT/s PCIe"), MaxLinkWidth: schema.Int(16)},
		})
	}
	g.Hives = []schema.GPUHive{{HiveID: "1", Devices: hive[0]}, {HiveID: "2", Devices: hive[1]}}
	return g
}

// TestBriefGPUs: the gpus line after the Python probe's lines, for the
// shapes real nodes have and the mixed ones; none for a document without
// the block (an older aorta-probe).
func TestBriefGPUs(t *testing.T) {
	cases := []struct {
		name string
		g    *schema.GPUs
		want string // "" for no line
	}{
		{"older document: no block, no line", nil, ""},
		{"8 × MI308X in CPX", fixtureGPUs(t, "CPX"),
			"8 × gfx942 (AMD Instinct MI308X) CPX/NPS1, 32 partitions, 1 XGMI hive, VBIOS 113-M3080202-100, VRAM 192 GiB, PCIe 32.0 GT/s x16"},
		{"8 × MI308X in SPX", fixtureGPUs(t, "SPX"),
			"8 × gfx942 (AMD Instinct MI308X) SPX/NPS1, 8 partitions, 1 XGMI hive, VBIOS 113-M3080202-100, VRAM 192 GiB, PCIe 32.0 GT/s x16"},
		{"8 × MI210 in two hives, no partition modes", mi210(),
			"8 × gfx90a (AMD Instinct MI210), 8 partitions, 2 XGMI hives (4+4), VBIOS 113-D67301-063, VRAM 64 GiB, PCIe 16.0 GT/s x16"},
		{"partition modes and VBIOS differ per device, one link below max",
			fixtureGPUs(t, "CPX", testdoc.OnDevice(6, "compute_partition", "SPX"), testdoc.OnDevice(7, "compute_partition", "SPX"),
				testdoc.OnDevice(2, "vbios_version", nil), testdoc.OnDevice(3, "pcie.current_link_width", pyjson.Number("8"))),
			"8 × gfx942 (AMD Instinct MI308X) 6×CPX+2×SPX/NPS1, 32 partitions, 1 XGMI hive, VBIOS 7×113-M3080202-100+1×?, VRAM 192 GiB, " +
				"PCIe 7×32.0 GT/s x16+1×32.0 GT/s x8 (1 below max)"},
		{"two models", func() *schema.GPUs {
			g := fixtureGPUs(t, "SPX", testdoc.OnDevice(0, "product_name", "AMD Instinct MI300X"), testdoc.OnDevice(1, "product_name", nil),
				testdoc.OnDevice(1, "gfx_target", "gfx90a"), testdoc.OnDevice(1, "compute_partition", nil), testdoc.OnDevice(1, "memory_partition", nil))
			g.Hives[0].Devices = g.Hives[0].Devices[2:]
			return g
		}(), "6 × gfx942 (AMD Instinct MI308X) + 1 × gfx942 (AMD Instinct MI300X) + 1 × gfx90a 7×SPX+1×?/7×NPS1+1×?, 8 partitions, " +
			"1 XGMI hive (6), VBIOS 113-M3080202-100, VRAM 192 GiB, PCIe 32.0 GT/s x16"},
		{"no kfd", &schema.GPUs{Reason: schema.Str("no /sys/class/kfd/kfd/topology/nodes")},
			"not read: no /sys/class/kfd/kfd/topology/nodes"},
		{"kfd lists only CPUs", &schema.GPUs{PhysicalCount: schema.Int(0), PartitionCount: schema.Int(0), Source: schema.Str("/sys/class/kfd/kfd/topology/nodes")},
			"none (kfd lists no GPU)"},
		{"one GPU's amdgpu sysfs not read: its values left out, the device and why named", func() *schema.GPUs {
			g := fixtureGPUs(t, "CPX")
			d := &g.Devices[2]
			reason := "/sys/class/drm/renderD144/device does not exist"
			*d = schema.GPUDevice{UniqueID: d.UniqueID, PCI: d.PCI, GfxTarget: d.GfxTarget, DeviceID: d.DeviceID, HiveID: d.HiveID,
				SIMDCount: d.SIMDCount, CUCount: d.CUCount, NumXCC: d.NumXCC, FWVersion: d.FWVersion, SDMAFWVersion: d.SDMAFWVersion,
				DRMReason: &reason, Partitions: d.Partitions}
			return g
		}(), "8 × gfx942 (AMD Instinct MI308X) CPX/NPS1, 32 partitions, 1 XGMI hive, VBIOS 113-M3080202-100, VRAM 192 GiB, " +
			"PCIe 32.0 GT/s x16, amdgpu sysfs not read on 1 GPU (0000:a4:00.0: /sys/class/drm/renderD144/device does not exist)"},
		{"a value refused: the ? explained by the device's reasons", func() *schema.GPUs {
			g := fixtureGPUs(t, "CPX")
			d := &g.Devices[2]
			d.ComputePartition = nil
			d.Reasons = &[]string{"/sys/class/drm/renderD144/device/current_compute_partition is 'XYZ', not a mode amdgpu writes (SPX, DPX, TPX, QPX, CPX, UNKNOWN)"}
			return g
		}(), "8 × gfx942 (AMD Instinct MI308X) 7×CPX+1×?/NPS1, 32 partitions, 1 XGMI hive, VBIOS 113-M3080202-100, VRAM 192 GiB, " +
			"PCIe 32.0 GT/s x16, 1 GPU with reasons (0000:a4:00.0: /sys/class/drm/renderD144/device/current_compute_partition is 'XYZ', " +
			"not a mode amdgpu writes (SPX, DPX, TPX, QPX, CPX, UNKNOWN))"},
		{"a kfd node unreadable: what was read, at least, and why no count", &schema.GPUs{
			Reason: schema.Str("/sys/class/kfd/kfd/topology/nodes/2/properties unreadable (OSError: [Errno 22] Invalid argument)"),
			Devices: []schema.GPUDevice{{PCI: schema.Str("0000:03:00.0"), GfxTarget: schema.Str("gfx90a"), DeviceID: schema.Str("0x740f"),
				DRMDevice: schema.Str("/sys/class/drm/renderD128/device"), PCIe: schema.GPUPCIe{CurrentLinkSpeed: schema.Str("16.0 GT/s PCIe")}}}},
			"at least 1 × gfx90a, no XGMI hive, PCIe 16.0 GT/s x?, " +
				"count unknown: /sys/class/kfd/kfd/topology/nodes/2/properties unreadable (OSError: [Errno 22] Invalid argument)"},
		{"kfd only, no amdgpu sysfs", &schema.GPUs{PhysicalCount: schema.Int(1), PartitionCount: schema.Int(1),
			Devices: []schema.GPUDevice{{GfxTarget: schema.Str("gfx1100"), DRMReason: schema.Str("/sys/class/drm/renderD128/device does not exist")}}},
			"1 × gfx1100, 1 partition, no XGMI hive, no amdgpu sysfs (/sys/class/drm/renderD128/device does not exist)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := schema.NotCaptured()
			if c.g != nil {
				s.Provenance = &schema.Provenance{GPUs: c.g}
			}
			lines := strings.Split(Brief(s), "\n")
			last := lines[len(lines)-1]
			if c.want == "" {
				if strings.Contains(Brief(s), "gpus:") {
					t.Errorf("a gpus line without the block: %q", last)
				}
				return
			}
			if want := "  gpus:      " + c.want; last != want {
				t.Errorf("\n got %q\nwant %q", last, want)
			}
		})
	}
}
