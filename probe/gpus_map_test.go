package probe

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// TestKFDReason: each error of source.KFDNodes worded as the block's
// reason, byte for byte.
func TestKFDReason(t *testing.T) {
	props := source.KFDProperties(1)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&source.Error{Kind: source.ErrRead, Path: source.KFDNodesDir, Err: &os.PathError{Op: "open", Path: source.KFDNodesDir, Err: syscall.ENOENT}},
			"no kfd topology (/sys/class/kfd/kfd/topology/nodes does not exist: amdgpu not loaded, no AMD GPU, or /sys not mounted in this container)"},
		{&source.Error{Kind: source.ErrRead, Path: source.KFDNodesDir, Err: &os.PathError{Op: "open", Path: source.KFDNodesDir, Err: syscall.EACCES}},
			"/sys/class/kfd/kfd/topology/nodes unreadable (PermissionError: [Errno 13] Permission denied: '/sys/class/kfd/kfd/topology/nodes')"},
		{&source.Error{Kind: source.ErrRead, Path: props, Err: &os.PathError{Op: "open", Path: props, Err: syscall.ENOENT}},
			"/sys/class/kfd/kfd/topology/nodes/1/properties unreadable (FileNotFoundError: [Errno 2] No such file or directory: '/sys/class/kfd/kfd/topology/nodes/1/properties')"},
		{&source.Error{Kind: source.ErrCap, Path: source.KFDNodesDir, Err: errors.New("more than 1024 entries")},
			"/sys/class/kfd/kfd/topology/nodes holds more than 1024 entries: not read (the cap on kfd nodes)"},
		{&source.Error{Kind: source.ErrChanged, Path: source.KFDGenerationID, Err: &source.KFDGenerations{Before: 40, After: 41, Again: 42}},
			"the kfd topology changed while it was read, twice (/sys/class/kfd/kfd/topology/generation_id went from 40 to 41, then to 42): no count is sure"},
		{&source.Error{Kind: source.ErrParse, Path: props, Err: &source.KFDPropertiesError{Node: 1, Bad: 2, First: source.KFDFault{Line: 1, Text: "simd_count 304\r", Why: "has a value that is not an unsigned decimal"}}},
			`/sys/class/kfd/kfd/topology/nodes/1/properties line 1 ('simd_count 304\r') has a value that is not an unsigned decimal (and 1 more lines not as kfd writes them): node 1 might be a GPU, so no count is sure`},
		{&source.Error{Kind: source.ErrParse, Path: props, Err: &source.KFDPropertiesError{Node: 1, Bad: 1, First: source.KFDFault{Line: 3, Text: strings.Repeat("é", 70), Why: "is not a name and a value"}}},
			"/sys/class/kfd/kfd/topology/nodes/1/properties line 3 ('" + strings.Repeat("é", 60) + "…') is not a name and a value: node 1 might be a GPU, so no count is sure"},
		{&source.Error{Kind: source.ErrParse, Path: props, Err: &source.KFDPropertiesError{Node: 1, Empty: true}},
			"/sys/class/kfd/kfd/topology/nodes/1/properties is empty: node 1 might be a GPU, so no count is sure"},
		{&source.Error{Kind: source.ErrParse, Path: props, Err: &source.KFDPropertiesError{Node: 1}},
			"/sys/class/kfd/kfd/topology/nodes/1/properties has neither gfx_target_version nor simd_count: node 1 might be a GPU, so no count is sure"},
	} {
		if got := kfdReason(tc.err); got != tc.want {
			t.Errorf("%v:\n%s\nwant\n%s", tc.err, got, tc.want)
		}
	}
}

func TestGfxTarget(t *testing.T) {
	for v, want := range map[uint64]string{
		90402: "gfx942", 90010: "gfx90a", 90500: "gfx950", 110000: "gfx1100", 100300: "gfx1030",
		90008: "gfx908", 120001: "gfx1201", 90012: "gfx90c", 1: "gfx001", 99999: "gfx96363",
	} {
		if got := gfxTarget(v); got != want {
			t.Errorf("gfxTarget(%d) = %s, want %s", v, got, want)
		}
	}
}

func TestPCIAddress(t *testing.T) {
	for _, tc := range []struct {
		dom, loc uint64
		want     string
	}{
		{0, 2560, "0000:0a:00.0"}, {0, 2563, "0000:0a:00.3"}, {1, 33024, "0001:81:00.0"},
		{0, 0xffff, "0000:ff:1f.7"}, {0x10000, 0x1ffff, "10000:ff:1f.7"},
	} {
		if got := pciAddress(tc.dom, tc.loc); got != tc.want {
			t.Errorf("pciAddress(%d, %d) = %s, want %s", tc.dom, tc.loc, got, tc.want)
		}
	}
}

// TestAMDGPUVocabulary: an amdgpu or PCI core attribute holding what the
// kernel never writes there is null and the device's reason quotes it;
// what the kernel writes (its "unknown" words included) is kept as
// written, or null where it means none (issue 32 item 6).
func TestAMDGPUVocabulary(t *testing.T) {
	const dir = "/sys/class/drm/renderD128/device"
	for _, tc := range []struct {
		attr, value string
		want        string // the device's field, compact JSON
		reason      string // "" for none
	}{
		{"current_compute_partition", "XYZ", `"compute_partition": null`, "current_compute_partition is 'XYZ', not a mode amdgpu writes (SPX, DPX, TPX, QPX, CPX, UNKNOWN)"},
		{"current_compute_partition", "cpx", `"compute_partition": null`, "is 'cpx', not a mode"},
		{"current_compute_partition", "CPX\x1b[2J", `"compute_partition": null`, `is 'CPX\x1b[2J', not a mode`},
		{"current_compute_partition", "TPX", `"compute_partition": "TPX"`, ""},
		{"current_compute_partition", "UNKNOWN", `"compute_partition": "UNKNOWN"`, ""},
		{"current_memory_partition", "NPS3", `"memory_partition": "NPS3"`, ""},
		{"current_memory_partition", "NPS5", `"memory_partition": null`, "is 'NPS5', not a mode amdgpu writes (NPS1, NPS2, NPS3, NPS4, NPS6, NPS8, UNKNOWN)"},
		{"available_compute_partition", "SPX, DPX, CPX", `"available_compute_partitions": ["SPX", "DPX", "CPX"]`, ""},
		{"available_compute_partition", "SPX, XYZ", `"available_compute_partitions": null`, "available_compute_partition is 'SPX, XYZ', not a list of modes amdgpu writes"},
		{"available_compute_partition", "Not supported", `"available_compute_partitions": null`, ""},
		{"available_memory_partition", "NPS1, NPS4", `"available_memory_partitions": ["NPS1", "NPS4"]`, ""},
		{"current_link_width", "-16", `"current_link_width": null`, "current_link_width is '-16', not a lane count the PCI core writes (0 to 63)"},
		{"current_link_width", "+16", `"current_link_width": null`, "is '+16', not a lane count"},
		{"current_link_width", "64", `"current_link_width": null`, "is '64', not a lane count"},
		{"current_link_width", "16", `"current_link_width": 16`, ""},
		{"current_link_width", "0", `"current_link_width": 0`, ""},
		{"max_link_width", "255", `"max_link_width": null`, ""},
		{"current_link_speed", "32.0 GT/s PCIe", `"current_link_speed": "32.0 GT/s PCIe"`, ""},
		{"current_link_speed", "8 GT/s", `"current_link_speed": "8 GT/s"`, ""},
		{"current_link_speed", "Unknown", `"current_link_speed": "Unknown"`, ""},
		{"current_link_speed", "33.0 GT/s PCIe", `"current_link_speed": null`, "is '33.0 GT/s PCIe', not a speed the PCI core writes"},
		{"max_link_speed", "-32.0 GT/s PCIe", `"max_link_speed": null`, "max_link_speed is '-32.0 GT/s PCIe'"},
		{"numa_node", "-1", `"numa_node": -1`, ""},
		{"numa_node", "-2", `"numa_node": null`, "numa_node is '-2', not a NUMA node the PCI core writes (-1 or a node number)"},
		{"numa_node", "--1", `"numa_node": null`, "is '--1'"},
		{"numa_node", "3", `"numa_node": 3`, ""},
		{"mem_info_vram_total", "-1", `"vram_bytes": null`, "mem_info_vram_total is '-1', not a byte count amdgpu writes (an unsigned decimal)"},
		{"mem_info_vram_total", "18446744073709551615", `"vram_bytes": null`, "is '18446744073709551615', not a byte count"},
		{"mem_info_vram_total", "206158430208", `"vram_bytes": 206158430208`, ""},
	} {
		root := kfdTree(t, map[string]string{"sys/devices/gpu/" + tc.attr: tc.value + "\n"})
		if err := os.MkdirAll(filepath.Join(root, "sys/class/drm/renderD128"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../../devices/gpu", filepath.Join(root, dir)); err != nil {
			t.Fatal(err)
		}
		var d schema.GPUDevice
		a, err := source.NewFS(machine.NewFS(root, "/", false)).AMDGPUDevice(dir)
		setAMDGPU(&d, dir, a, err)
		got := string(pyjson.EncodeCompact(d))
		var reasons []string
		if d.Reasons != nil {
			reasons = *d.Reasons
		}
		if !strings.Contains(got, tc.want) || (tc.reason == "") != (len(reasons) == 0) ||
			tc.reason != "" && (len(reasons) != 1 || !strings.Contains(reasons[0], tc.reason) || !strings.HasPrefix(reasons[0], dir+"/"+tc.attr+" is ")) {
			t.Errorf("%s %q: %s\nwant %s and reason %q", tc.attr, tc.value, got, tc.want, tc.reason)
		}
	}
}
