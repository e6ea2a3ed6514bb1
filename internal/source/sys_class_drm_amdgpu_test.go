package source

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
)

const amdgpuDir = "/sys/class/drm/renderD128/device"

// TestAMDGPUDevice: every attribute of a real MI300X-like device read as
// written, the firmware files in name order without "_fw_version" (a
// directory, a FIFO and an empty file among them left out), the device
// link's name.
func TestAMDGPUDevice(t *testing.T) {
	src := fakeFS(t, `
-- sys/class/drm/renderD128/device -> ../../../devices/pci0000:00/0000:0a:00.0 --
-- sys/devices/pci0000:00/0000:0a:00.0/numa_node --
0
-- sys/devices/pci0000:00/0000:0a:00.0/product_name --
AMD Instinct MI300X
-- sys/devices/pci0000:00/0000:0a:00.0/vbios_version --
113-M3000100-102
-- sys/devices/pci0000:00/0000:0a:00.0/mem_info_vram_total --
206158430208
-- sys/devices/pci0000:00/0000:0a:00.0/current_compute_partition --
SPX
-- sys/devices/pci0000:00/0000:0a:00.0/available_compute_partition --
SPX, DPX, CPX
-- sys/devices/pci0000:00/0000:0a:00.0/current_memory_partition --
NPS1
-- sys/devices/pci0000:00/0000:0a:00.0/available_memory_partition --
Not supported
-- sys/devices/pci0000:00/0000:0a:00.0/current_link_speed --
32.0 GT/s PCIe
-- sys/devices/pci0000:00/0000:0a:00.0/current_link_width --
16
-- sys/devices/pci0000:00/0000:0a:00.0/max_link_speed --
32.0 GT/s PCIe
-- sys/devices/pci0000:00/0000:0a:00.0/max_link_width --
255
-- sys/devices/pci0000:00/0000:0a:00.0/fw_version/sos_fw_version --
0x00270082
-- sys/devices/pci0000:00/0000:0a:00.0/fw_version/mec_fw_version --
0x0000009a
-- sys/devices/pci0000:00/0000:0a:00.0/fw_version/empty_fw_version --
-- sys/devices/pci0000:00/0000:0a:00.0/fw_version/sub [dir] --
-- sys/devices/pci0000:00/0000:0a:00.0/fw_version/fifo_fw_version [fifo] --
`)
	d, err := src.AMDGPUDevice(amdgpuDir)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("numa %s product %s vbios %s vram %s compute %s %q memory %s %q link %s x%s max %s x%s fw %v refused %v",
		golden.OrNull(d.NUMANode), golden.OrNull(d.ProductName), golden.OrNull(d.VBIOSVersion), golden.OrNull(d.VRAMBytes),
		golden.OrNull(d.ComputePartition), d.AvailableComputePartitions, golden.OrNull(d.MemoryPartition), d.AvailableMemoryPartitions,
		golden.OrNull(d.CurrentLinkSpeed), golden.OrNull(d.CurrentLinkWidth), golden.OrNull(d.MaxLinkSpeed), golden.OrNull(d.MaxLinkWidth),
		d.Firmware, d.Refused)
	want := `numa 0 product AMD Instinct MI300X vbios 113-M3000100-102 vram 206158430208 compute SPX ["SPX" "DPX" "CPX"] memory NPS1 [] ` +
		`link 32.0 GT/s PCIe x16 max 32.0 GT/s PCIe xnull fw [{mec 0x0000009a} {sos 0x00270082}] refused []`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	name, isLink, err := src.DRMDeviceName(amdgpuDir)
	if name != "0000:0a:00.0" || !isLink || err != nil {
		t.Errorf("DRMDeviceName: %q, %v, %v", name, isLink, err)
	}
}

// TestAMDGPUDeviceRefused: an attribute holding what the kernel never
// writes there is nil and refused (the attribute and what it held, in
// reading order); what the kernel writes, its "unknown" words included,
// is kept, or nil where it means none.
func TestAMDGPUDeviceRefused(t *testing.T) {
	for _, tc := range []struct {
		attr, value string
		want        string // the value read, "null" for nil
		refused     bool
	}{
		{"current_compute_partition", "XYZ", "null", true},
		{"current_compute_partition", "cpx", "null", true},
		{"current_compute_partition", "CPX\x1b[2J", "null", true},
		{"current_compute_partition", "TPX", "TPX", false},
		{"current_compute_partition", "UNKNOWN", "UNKNOWN", false},
		{"current_memory_partition", "NPS3", "NPS3", false},
		{"current_memory_partition", "NPS5", "null", true},
		{"available_compute_partition", "SPX,, DPX ,CPX", "[SPX DPX CPX]", false},
		{"available_compute_partition", "SPX, XYZ", "[]", true},
		{"available_compute_partition", "Not supported", "[]", false},
		{"available_memory_partition", "NPS1, NPS4", "[NPS1 NPS4]", false},
		{"current_link_width", "-16", "null", true},
		{"current_link_width", "+16", "null", true},
		{"current_link_width", "64", "null", true},
		{"current_link_width", "0", "0", false},
		{"max_link_width", "255", "null", false},
		{"current_link_speed", "8 GT/s", "8 GT/s", false},
		{"current_link_speed", "Unknown", "Unknown", false},
		{"max_link_speed", "33.0 GT/s PCIe", "null", true},
		{"numa_node", "-1", "-1", false},
		{"numa_node", "-2", "null", true},
		{"numa_node", "--1", "null", true},
		{"mem_info_vram_total", "-1", "null", true},
		{"mem_info_vram_total", "18446744073709551615", "null", true},
		{"product_name", "\xff", "null", false},
	} {
		src := fakeFS(t, "-- sys/class/drm/renderD128/device/"+tc.attr+" --\n"+tc.value+"\n")
		d, err := src.AMDGPUDevice(amdgpuDir)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{
			"current_compute_partition":   golden.OrNull(d.ComputePartition),
			"current_memory_partition":    golden.OrNull(d.MemoryPartition),
			"available_compute_partition": fmt.Sprint(d.AvailableComputePartitions),
			"available_memory_partition":  fmt.Sprint(d.AvailableMemoryPartitions),
			"current_link_width":          golden.OrNull(d.CurrentLinkWidth),
			"max_link_width":              golden.OrNull(d.MaxLinkWidth),
			"current_link_speed":          golden.OrNull(d.CurrentLinkSpeed),
			"max_link_speed":              golden.OrNull(d.MaxLinkSpeed),
			"numa_node":                   golden.OrNull(d.NUMANode),
			"mem_info_vram_total":         golden.OrNull(d.VRAMBytes),
			"product_name":                golden.OrNull(d.ProductName),
		}[tc.attr]
		var want []AMDGPURefusal
		if tc.refused {
			want = []AMDGPURefusal{{tc.attr, tc.value}}
		}
		if got != tc.want || !reflect.DeepEqual(d.Refused, want) {
			t.Errorf("%s %q: %s, refused %q; want %s, refused %v", tc.attr, tc.value, got, d.Refused, tc.want, tc.refused)
		}
	}
}

// TestAMDGPUFirmwareCap: a fw_version directory over AMDGPUFirmwareMax
// entries is not read (nil, ErrCap of its path); no directory is nil
// without error; no device link is no name, no error; a missing one is
// ErrRead wrapping fs.ErrNotExist.
func TestAMDGPUFirmwareCap(t *testing.T) {
	var b strings.Builder
	for i := range AMDGPUFirmwareMax + 1 {
		b.WriteString("-- sys/class/drm/renderD128/device/fw_version/f" + strconv.Itoa(i) + "_fw_version --\n0x1\n")
	}
	src := fakeFS(t, b.String()+"-- sys/class/drm/renderD129/device/numa_node --\n1\n")
	d, err := src.AMDGPUDevice(amdgpuDir)
	var e *Error
	if d.Firmware != nil || !errors.Is(err, ErrCap) || !errors.As(err, &e) || e.Path != amdgpuDir+"/fw_version" {
		t.Errorf("over the cap: %d firmware, %v", len(d.Firmware), err)
	}
	d, err = src.AMDGPUDevice("/sys/class/drm/renderD129/device")
	if d.Firmware != nil || err != nil || golden.OrNull(d.NUMANode) != "1" {
		t.Errorf("no fw_version: %v, %v, numa %s", d.Firmware, err, golden.OrNull(d.NUMANode))
	}
	if name, isLink, err := src.DRMDeviceName("/sys/class/drm/renderD129/device"); name != "" || isLink || err != nil {
		t.Errorf("a directory: %q, %v, %v", name, isLink, err)
	}
	if _, _, err := src.DRMDeviceName("/sys/class/drm/renderD130/device"); !errors.Is(err, ErrRead) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// FuzzKernelInt: kernelInt accepts only what "%d" or "%u" prints within
// the bounds, and gives the number printed.
func FuzzKernelInt(f *testing.F) {
	for _, s := range []string{"16", "-1", "-16", "+16", "0x10", " 16", "007", "", "-", "9223372036854775808", "255"} {
		f.Add(s, int64(-1), int64(63))
		f.Add(s, int64(0), int64(63))
	}
	f.Fuzz(func(t *testing.T, s string, lo, hi int64) {
		n, ok := kernelInt(s, lo, hi)
		if !ok {
			return
		}
		printed := strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
		if strings.HasPrefix(s, "-") {
			printed = "-" + printed
		}
		if n < lo || n > hi || (lo >= 0 && strings.HasPrefix(s, "-")) || printed != strconv.FormatInt(n, 10) && !(n == 0 && strings.Trim(s, "-0") == "") {
			t.Fatalf("kernelInt(%q, %d, %d) = %d", s, lo, hi, n)
		}
	})
}
