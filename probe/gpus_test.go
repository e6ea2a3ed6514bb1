package probe

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

// gpusOf expands a scenario archive and reads its GPUs.
func gpusOf(t testing.TB, archive string) schema.GPUs {
	t.Helper()
	root := testtree.TempDir(t)
	if _, err := fakeroot.Materialize(archive, root); err != nil {
		t.Fatal(err)
	}
	return collectGPUs(machine.NewFS(root, "/", false), 4)
}

// gpuSummary is what the issue asks of a node: physical GPUs, partitions,
// gfx targets, hive sizes.
func gpuSummary(g schema.GPUs) string {
	targets := map[string]bool{}
	for _, d := range g.Devices {
		targets[fmt.Sprint(golden.OrNull(d.GfxTarget))] = true
	}
	var hives []string
	for _, h := range g.Hives {
		hives = append(hives, strconv.Itoa(len(h.Devices)))
	}
	return fmt.Sprintf("physical=%s partitions=%s gfx=%s hives=[%s] compute=%s memory=%s",
		golden.OrNull(g.PhysicalCount), golden.OrNull(g.PartitionCount), strings.Join(slices.Sorted(maps.Keys(targets)), ","),
		strings.Join(hives, " "), golden.OrNull(g.ComputePartition), golden.OrNull(g.MemoryPartition))
}

// TestGPUsRealTopologies reads the two real kfd topologies (their amdgpu
// side built, see the archives) and checks the answers the issue names.
func TestGPUsRealTopologies(t *testing.T) {
	for _, tc := range []struct{ archive, want string }{
		{"gpus-mi308x-cpx", "physical=8 partitions=32 gfx=gfx942 hives=[8] compute=CPX memory=NPS1"},
		{"gpus-mi210-xgmi-pcie", "physical=8 partitions=8 gfx=gfx90a hives=[4 4] compute=null memory=null"},
		{"gpus-mi300x-cpx-64", "physical=8 partitions=64 gfx=gfx942 hives=[8] compute=CPX memory=NPS1"},
	} {
		t.Run(tc.archive, func(t *testing.T) {
			var g schema.GPUs
			if tc.archive == "gpus-mi300x-cpx-64" {
				g = collectGPUs(machine.NewFS(mi300xCPX64(t), "/", false), 4)
			} else {
				g = gpusOf(t, "../testdata/roots/"+tc.archive+".txtar")
			}
			if got := gpuSummary(g); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if g.Reason != nil || g.Source == nil {
				t.Errorf("reason %v, source %v", golden.OrNull(g.Reason), golden.OrNull(g.Source))
			}
			parts := 0
			for i, d := range g.Devices {
				parts += len(d.Partitions)
				if d.DRMDevice == nil || d.DRMReason != nil {
					t.Errorf("device %d: drm_device %s, drm_reason %s", i, golden.OrNull(d.DRMDevice), golden.OrNull(d.DRMReason))
				}
				if i > 0 && *g.Devices[i-1].PCI >= *d.PCI {
					t.Errorf("devices not in PCI order: %s then %s", *g.Devices[i-1].PCI, *d.PCI)
				}
				if d.VRAMBytes == nil || d.ProductName == nil || d.VBIOSVersion == nil || len(d.Firmware) == 0 {
					t.Errorf("device %s: amdgpu fields missing: %s", *d.PCI, pyjson.EncodeCompact(d))
				}
			}
			if parts != *g.PartitionCount {
				t.Errorf("partitions listed %d, partition_count %d", parts, *g.PartitionCount)
			}
		})
	}
}

// TestGPUsMI308XDetail pins one device of the MI308X node field by field.
func TestGPUsMI308XDetail(t *testing.T) {
	g := gpusOf(t, "../testdata/roots/gpus-mi308x-cpx.txtar")
	d := g.Devices[0]
	got := string(pyjson.EncodeCompact(d))
	for _, want := range []string{
		`"unique_id": "598046273873802902"`, `"pci": "0000:0a:00.0"`, `"gfx_target": "gfx942"`,
		`"device_id": "0x74a2"`, `"hive_id": "2095653680343411291"`, `"numa_node": 0`,
		`"simd_count": 320`, `"cu_count": 80`, `"num_xcc": 4`, `"fw_version": 149`, `"sdma_fw_version": 19`,
		`"product_name": "AMD Instinct MI308X"`, `"vram_bytes": 206158430208`,
		`"available_compute_partitions": ["SPX", "DPX", "CPX"]`, `"available_memory_partitions": ["NPS1", "NPS4"]`,
		`"current_link_speed": "32.0 GT/s PCIe"`, `"current_link_width": 16`,
		`{"name": "mec", "version": "0x00000095"}`,
		`"drm_device": "/sys/class/drm/renderD128/device"`,
		`{"node": 2, "render_minor": 128, "pci_function": 0, "num_xcc": 1, "cu_count": 20}`,
		`{"node": 5, "render_minor": 131, "pci_function": 3, "num_xcc": 1, "cu_count": 20}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("device 0 lacks %s:\n%s", want, got)
		}
	}
	if *g.Devices[4].PCI != "0001:0b:00.0" || *g.Devices[4].NUMANode != 1 {
		t.Errorf("device 4: %s numa %v", *g.Devices[4].PCI, g.Devices[4].NUMANode)
	}
}

// TestGPUsMI210LinkAndHives: the two hives hold the PCI addresses kfd
// gives their members, and the one GPU trained at x8 shows it.
func TestGPUsMI210LinkAndHives(t *testing.T) {
	g := gpusOf(t, "../testdata/roots/gpus-mi210-xgmi-pcie.txtar")
	want := [][]string{
		{"0000:03:00.0", "0000:26:00.0", "0000:43:00.0", "0000:63:00.0"},
		{"0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0"},
	}
	if len(g.Hives) != 2 || !slices.Equal(g.Hives[0].Devices, want[0]) || !slices.Equal(g.Hives[1].Devices, want[1]) {
		t.Errorf("hives %s", pyjson.EncodeCompact(g.Hives))
	}
	if g.Hives[0].HiveID != "12609507387757274807" {
		t.Errorf("first hive id %s", g.Hives[0].HiveID)
	}
	for _, d := range g.Devices {
		w := *d.PCIe.CurrentLinkWidth
		if (*d.PCI == "0000:03:00.0") != (w == 8) || *d.PCIe.MaxLinkWidth != 16 {
			t.Errorf("%s: link x%d of x%d", *d.PCI, w, *d.PCIe.MaxLinkWidth)
		}
		if d.ComputePartition != nil || d.AvailableComputePartitions != nil || d.MemoryPartition != nil {
			t.Errorf("%s: partition modes on an MI210: %s", *d.PCI, pyjson.EncodeCompact(d))
		}
		if *d.CUCount != 104 || len(d.Partitions) != 1 {
			t.Errorf("%s: %d CUs, %d partitions", *d.PCI, *d.CUCount, len(d.Partitions))
		}
	}
}

// TestGPUsHostile: a kfd or DRM tree that is missing, unreadable, huge, a
// FIFO, a link loop or not UTF-8 gives nulls and reasons, never a hang, a
// guess or a read outside the root.
func TestGPUsHostile(t *testing.T) {
	gpu := "simd_count 8\nsimd_per_cu 4\ngfx_target_version 90010\ndomain 0\nlocation_id 768\ndrm_render_minor 128\nunique_id 7\nnum_xcc 1\n"
	cpu := "cpu_cores_count 64\nsimd_count 0\ngfx_target_version 0\n"
	nodes := "sys/class/kfd/kfd/topology/nodes/"
	dev := "sys/devices/pci0000:00/0000:03:00.0"
	drm := []fakeroot.File{
		{Path: "sys/class/drm/renderD128", Link: "../../devices/pci0000:00/0000:03:00.0/drm/renderD128"},
		{Path: dev + "/drm/renderD128/device", Link: "../../../0000:03:00.0"},
	}
	file := func(p, data string) fakeroot.File {
		return fakeroot.File{Path: p, Data: []byte(data), Mode: 0o644, Size: -1}
	}
	for _, tc := range []struct {
		name   string
		files  []fakeroot.File
		faults map[string]syscall.Errno
		want   string // gpuSummary
		// reason and drmReason: substrings of the block's and the first
		// device's reason ("" for none).
		reason, drmReason string
		check             func(t *testing.T, g schema.GPUs)
	}{
		{name: "no kfd", want: "physical=null partitions=null gfx= hives=[] compute=null memory=null",
			reason: "no kfd topology (/sys/class/kfd/kfd/topology/nodes does not exist"},
		{name: "nodes is a file", files: []fakeroot.File{file("sys/class/kfd/kfd/topology/nodes", "x")},
			want: "physical=null partitions=null gfx= hives=[] compute=null memory=null", reason: "unreadable (NotADirectoryError"},
		{name: "cpu only", files: []fakeroot.File{file(nodes+"0/properties", cpu)},
			want: "physical=0 partitions=0 gfx= hives=[] compute=null memory=null"},
		{name: "node properties a FIFO",
			files: []fakeroot.File{file(nodes+"0/properties", cpu), {Path: nodes + "1/properties", FIFO: true}, file(nodes+"2/properties", gpu)},
			want:  "physical=null partitions=null gfx=gfx90a hives=[] compute=null memory=null", reason: "/nodes/1/properties unreadable",
			drmReason: "/sys/class/drm/renderD128/device does not exist"},
		{name: "node properties huge",
			files: []fakeroot.File{{Path: nodes + "0/properties", Data: []byte(gpu), Mode: 0o644, Size: 1 << 30}},
			want:  "physical=null partitions=null gfx= hives=[] compute=null memory=null", reason: "/nodes/0/properties unreadable (OSError: [Errno 27] File too large"},
		{name: "node a link loop",
			files: []fakeroot.File{{Path: nodes + "0", Link: "0"}},
			want:  "physical=null partitions=null gfx= hives=[] compute=null memory=null", reason: "Too many levels of symbolic links"},
		{name: "node escapes the root",
			files: []fakeroot.File{{Path: nodes + "0", Link: "/../../../../../../../../sys/class/kfd/kfd/topology/nodes/0"}},
			want:  "physical=null partitions=null gfx= hives=[] compute=null memory=null", reason: "/nodes/0/properties unreadable"},
		{name: "unreadable properties",
			files: []fakeroot.File{file(nodes+"0/properties", gpu)}, faults: map[string]syscall.Errno{"open /" + nodes + "0/properties": syscall.EACCES},
			want: "physical=null partitions=null gfx= hives=[] compute=null memory=null", reason: "PermissionError"},
		{name: "non-node entries skipped",
			files: []fakeroot.File{file(nodes+"0/properties", gpu), file(nodes+"README", "x"), file(nodes+"01/properties", gpu)},
			want:  "physical=1 partitions=1 gfx=gfx90a hives=[] compute=null memory=null", drmReason: "does not exist"},
		{name: "no DRM device", files: []fakeroot.File{file(nodes+"0/properties", gpu)},
			want: "physical=1 partitions=1 gfx=gfx90a hives=[] compute=null memory=null", drmReason: "/sys/class/drm/renderD128/device does not exist"},
		{name: "no render minor", files: []fakeroot.File{file(nodes+"0/properties", strings.Replace(gpu, "drm_render_minor 128\n", "", 1))},
			want: "physical=1 partitions=1 gfx=gfx90a hives=[] compute=null memory=null", drmReason: "kfd node 0 has no drm_render_minor"},
		{name: "render node of a partition",
			files: []fakeroot.File{file(nodes+"0/properties", gpu),
				{Path: "sys/class/drm/renderD128", Link: "../../devices/platform/amdgpu_xcp.0/drm/renderD128"},
				{Path: "sys/devices/platform/amdgpu_xcp.0/drm/renderD128/device", Link: "../../../amdgpu_xcp.0"}},
			want: "physical=1 partitions=1 gfx=gfx90a hives=[] compute=null memory=null", drmReason: "is amdgpu_xcp.0, not the PCI device 0000:03:00.0"},
		{name: "hostile attributes",
			files: append(slices.Clone(drm), file(nodes+"0/properties", gpu),
				fakeroot.File{Path: dev + "/product_name", Data: []byte("AMD \xff\xfe\n"), Mode: 0o644, Size: -1},
				fakeroot.File{Path: dev + "/vbios_version", FIFO: true},
				fakeroot.File{Path: dev + "/mem_info_vram_total", Data: []byte("1"), Mode: 0o644, Size: 1 << 20},
				file(dev+"/current_compute_partition", "\n"),
				file(dev+"/current_memory_partition", "NPS1\n"),
				file(dev+"/available_memory_partition", " , NPS1,,NPS4 ,\n"),
				file(dev+"/numa_node", "-1\n"),
				file(dev+"/current_link_width", "sixteen\n"),
				fakeroot.File{Path: dev + "/max_link_width", Link: "max_link_width"},
				file(dev+"/fw_version/mec_fw_version", "0x0000005c\n"),
				fakeroot.File{Path: dev + "/fw_version/sos_fw_version", FIFO: true},
				fakeroot.File{Path: dev + "/fw_version/ta_fw_version", Link: "../../../../../../host"},
				fakeroot.File{Path: dev + "/fw_version/sub", Dir: true}),
			want: "physical=1 partitions=1 gfx=gfx90a hives=[] compute=null memory=NPS1",
			check: func(t *testing.T, g schema.GPUs) {
				d := g.Devices[0]
				got := string(pyjson.EncodeCompact(schema.GPUDevice{ProductName: d.ProductName, VBIOSVersion: d.VBIOSVersion, VRAMBytes: d.VRAMBytes,
					ComputePartition: d.ComputePartition, AvailableMemoryPartitions: d.AvailableMemoryPartitions, NUMANode: d.NUMANode,
					PCIe: d.PCIe, Firmware: d.Firmware, Partitions: []schema.GPUPartition{}}))
				for _, want := range []string{`"product_name": null`, `"vbios_version": null`, `"vram_bytes": null`,
					`"compute_partition": null`, `"available_memory_partitions": ["NPS1", "NPS4"]`, `"numa_node": -1`,
					`"current_link_width": null`, `"max_link_width": null`, `"firmware": [{"name": "mec", "version": "0x0000005c"}]`} {
					if !strings.Contains(got, want) {
						t.Errorf("lacks %s: %s", want, got)
					}
				}
			}},
		{name: "no unique_id: PCI address without function",
			files: []fakeroot.File{
				file(nodes+"1/properties", strings.Replace(gpu, "unique_id 7\n", "", 1)),
				file(nodes+"2/properties", strings.Replace(strings.Replace(gpu, "unique_id 7\n", "unique_id 0\n", 1), "location_id 768", "location_id 769", 1)),
				file(nodes+"3/properties", strings.Replace(strings.Replace(gpu, "unique_id 7\n", "", 1), "location_id 768", "location_id 512", 1))},
			want: "physical=2 partitions=3 gfx=gfx90a hives=[] compute=null memory=null",
			check: func(t *testing.T, g schema.GPUs) {
				if *g.Devices[0].PCI != "0000:02:00.0" || len(g.Devices[1].Partitions) != 2 || g.Devices[1].UniqueID != nil {
					t.Errorf("grouping: %s", pyjson.EncodeCompact(g.Devices))
				}
			}},
		{name: "modes disagree",
			files: []fakeroot.File{
				file(nodes+"1/properties", gpu), file(nodes+"2/properties", strings.NewReplacer("unique_id 7", "unique_id 8", "location_id 768", "location_id 1024", "drm_render_minor 128", "drm_render_minor 136").Replace(gpu)),
				{Path: "sys/class/drm/renderD128", Link: "../../devices/pci0000:00/0000:03:00.0/drm/renderD128"},
				{Path: dev + "/drm/renderD128/device", Link: "../../../0000:03:00.0"},
				{Path: "sys/class/drm/renderD136", Link: "../../devices/pci0000:00/0000:04:00.0/drm/renderD136"},
				{Path: "sys/devices/pci0000:00/0000:04:00.0/drm/renderD136/device", Link: "../../../0000:04:00.0"},
				file(dev+"/current_compute_partition", "CPX\n"), file("sys/devices/pci0000:00/0000:04:00.0/current_compute_partition", "SPX\n"),
				file(dev+"/current_memory_partition", "NPS1\n"), file("sys/devices/pci0000:00/0000:04:00.0/current_memory_partition", "NPS1\n")},
			want: "physical=2 partitions=2 gfx=gfx90a hives=[] compute=null memory=NPS1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testtree.TempDir(t)
			for i := range tc.files {
				if tc.files[i].Size == 0 && !tc.files[i].FIFO && tc.files[i].Link == "" && !tc.files[i].Dir {
					tc.files[i].Size = -1
				}
			}
			if err := (&fakeroot.Archive{Files: tc.files}).Expand(root); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(root), "host"), []byte("PLANTED"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, rv := range resolvers {
				fs := machine.NewFS(root, "/", rv.portable)
				if tc.faults != nil {
					fs.SetFaults(tc.faults)
				}
				var g schema.GPUs
				within(t, tc.name, func() { g = collectGPUs(fs, 1+len(tc.name)%3) })
				if got := gpuSummary(g); got != tc.want {
					t.Errorf("%s: got  %s\nwant %s", rv.name, got, tc.want)
				}
				if r := golden.OrNull(g.Reason); (tc.reason == "") != (g.Reason == nil) || !strings.Contains(r, tc.reason) {
					t.Errorf("%s: reason %s, want %q", rv.name, r, tc.reason)
				}
				if tc.drmReason != "" && (len(g.Devices) == 0 || !strings.Contains(golden.OrNull(g.Devices[0].DRMReason), tc.drmReason)) {
					t.Errorf("%s: drm_reason %s, want %q", rv.name, pyjson.EncodeCompact(g.Devices), tc.drmReason)
				}
				if doc := string(pyjson.EncodeCompact(g)); strings.Contains(doc, "PLANTED") {
					t.Errorf("%s: read outside the root: %s", rv.name, doc)
				}
				if tc.check != nil {
					tc.check(t, g)
				}
			}
		})
	}
}

// BenchmarkCollectGPUs is the gpus block alone over the real MI308X node
// (32 partitions) and the synthesized MI300X-CPX node (64): every file
// read through machine.FS under a root, as --root reads it.
//
//	go test ./probe -run XXX -bench CollectGPUs -benchmem
func BenchmarkCollectGPUs(b *testing.B) {
	for _, tc := range []struct {
		name string
		root func(b *testing.B) string
	}{
		{"mi308x-32", func(b *testing.B) string {
			root := b.TempDir()
			if _, err := fakeroot.Materialize("../testdata/roots/gpus-mi308x-cpx.txtar", root); err != nil {
				b.Fatal(err)
			}
			return root
		}},
		{"mi300x-64", func(b *testing.B) string { return mi300xCPX64(b) }},
	} {
		fs := machine.NewFS(tc.root(b), "/", false)
		for _, workers := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					collectGPUs(fs, workers)
				}
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
	}
}

// BenchmarkNoPythonGPUs is a whole --no-python collection of the
// 64-partition node, the gpus block reading it ("with") and the same root
// with the block's first read failing (ENOENT on the kfd nodes directory,
// which no other probe lists: "without"). The difference is what the
// block adds to a --no-python run where nothing else hides it. "detached"
// reads the block in the detached reader, as the binary does (this test
// binary re-executed, larger than the probe's); "without" stays in the
// probe (a fault makes it so), and so does "with" (gpus_detached.go).
//
//	go test ./probe -run XXX -bench NoPythonGPUs -benchtime 200x
func BenchmarkNoPythonGPUs(b *testing.B) {
	root := mi300xCPX64(b)
	for _, tc := range []struct {
		name   string
		faults map[string]syscall.Errno
		exe    string
	}{
		{"with", nil, ""},
		{"detached", nil, os.Args[0]},
		{"without", map[string]syscall.Errno{"open " + source.KFDNodesDir: syscall.ENOENT}, ""},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opt := Options{Seams: machine.Seams{Root: root, Env: func(string) (string, bool) { return "", false }}, Python: PythonOptions{Disabled: true}, Now: fixedNow,
				faults: tc.faults, detachedExe: tc.exe}
			if g := Collect(context.Background(), opt).Provenance.GPUs; (tc.faults == nil) != (g.PhysicalCount != nil) {
				b.Fatalf("%s: gpus %s", tc.name, pyjson.EncodeCompact(g))
			}
			cpu0 := cpuTime()
			for b.Loop() {
				Collect(context.Background(), opt)
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far (getrusage):
// the benchmarks report it beside wall time, which a loaded machine
// stretches.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
