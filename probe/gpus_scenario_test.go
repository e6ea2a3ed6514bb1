package probe

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/source"
	"aorta-probe/internal/testtree"
)

// kfdFixtures is the folder of real kfd topologies (one folder per node,
// each the content of /sys/class/kfd/kfd/topology/) that
// TestWriteGPUScenarios turns into scenario archives:
//
//	go test ./probe -run TestWriteGPUScenarios -kfd-fixtures /work/shared/fixtures/kfd
var kfdFixtures = flag.String("kfd-fixtures", "", "folder of captured kfd topologies to rebuild testdata/roots/gpus-*.txtar from")

// gpuBoard is the amdgpu side of one physical GPU, which the fixtures do
// not hold: written from the amdgpu sysfs documentation (Linux
// Documentation/gpu/amdgpu/driver-misc.rst and the attributes' kernel-doc)
// and the PCI core's link attributes, with plausible values.
type gpuBoard struct {
	product, vbios            string
	vram                      int64
	compute, computeAvailable string // "" when the GPU has no partition modes
	memory, memoryAvailable   string
	linkSpeed, maxLinkSpeed   string
	linkWidth, maxLinkWidth   int
	numa                      int
	firmware                  [][2]string // fw_version/<name>_fw_version, value
}

// gpuScenarioSpec is one archive to build.
type gpuScenarioSpec struct {
	name    string // testdata/roots/<name>.txtar
	fixture string // folder under kfdFixtures
	comment string // what the scenario shows (the archive's description)
	// board gives the built amdgpu side of the i-th physical GPU (PCI
	// order) at address pci.
	board func(i int, pci string) gpuBoard
}

// firmware lists fw_version files in name order.
func firmware(kv map[string]uint32) [][2]string {
	names := make([]string, 0, len(kv))
	for n := range kv {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([][2]string, 0, len(names))
	for _, n := range names {
		out = append(out, [2]string{n, fmt.Sprintf("0x%08x", kv[n])})
	}
	return out
}

var gpuScenarios = []gpuScenarioSpec{
	{
		name: "gpus-mi308x-cpx", fixture: "mi308x-cpx",
		comment: "8 × AMD Instinct MI308X (gfx942) in a 4-way compute partition mode: 32 kfd GPU nodes,\n" +
			"one XGMI hive. Expected: probe_provenance.gpus physical_count 8, partition_count 32,\n" +
			"gfx942, 1 hive of 8, compute_partition CPX, memory_partition NPS1.",
		board: func(i int, pci string) gpuBoard {
			return gpuBoard{
				product: "AMD Instinct MI308X", vbios: "113-M3080202-100", vram: 192 << 30,
				compute: "CPX", computeAvailable: "SPX, DPX, CPX", memory: "NPS1", memoryAvailable: "NPS1, NPS4",
				linkSpeed: "32.0 GT/s PCIe", maxLinkSpeed: "32.0 GT/s PCIe", linkWidth: 16, maxLinkWidth: 16,
				numa: i / 4,
				firmware: firmware(map[string]uint32{"asd": 0x21000106, "mec": 149, "rlc": 0x11, "sdma": 19, "sdma2": 19,
					"smc": 0x055c2100, "sos": 0x00380041, "ta_ras": 0x1b00013e, "ta_xgmi": 0x20000108, "vcn": 0x0110101b}),
			}
		},
	},
	{
		name: "gpus-mi210-xgmi-pcie", fixture: "mi210-xgmi-pcie",
		comment: "8 × AMD Instinct MI210 (gfx90a) in two XGMI hives of 4, joined by PCIe; no partition\n" +
			"modes (MI210 has none: the amdgpu partition files are absent). One GPU (0000:03:00.0)\n" +
			"trained its link at x8 of x16. Expected: physical_count 8, partition_count 8, gfx90a,\n" +
			"2 hives of 4, compute_partition and memory_partition null.",
		board: func(i int, pci string) gpuBoard {
			b := gpuBoard{
				product: "AMD Instinct MI210", vbios: "113-D67301-063", vram: 64 << 30,
				linkSpeed: "16.0 GT/s PCIe", maxLinkSpeed: "16.0 GT/s PCIe", linkWidth: 16, maxLinkWidth: 16,
				numa: i / 4,
				firmware: firmware(map[string]uint32{"asd": 0x21000103, "mec": 92, "mec2": 92, "rlc": 0x3c, "sdma": 9,
					"smc": 0x00443d00, "sos": 0x00270082, "ta_ras": 0x1b00013e, "ta_xgmi": 0x20000107, "vcn": 0x0110101b}),
			}
			if pci == "0000:03:00.0" {
				b.linkWidth = 8
			}
			return b
		},
	},
}

// TestWriteGPUScenarios rebuilds testdata/roots/gpus-*.txtar from the real
// kfd topologies in -kfd-fixtures (skipped without it: the fixtures live
// outside the repository).
func TestWriteGPUScenarios(t *testing.T) {
	if *kfdFixtures == "" {
		t.Skip("no -kfd-fixtures folder given (the archives are committed; this rebuilds them)")
	}
	for _, spec := range gpuScenarios {
		a, err := buildGPUScenario(filepath.Join(*kfdFixtures, spec.fixture), spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("../testdata/roots", spec.name+".txtar"), fakeroot.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// kfdFixtureFiles are the files of a captured topology a scenario keeps:
// what the probe and rocm_agent_enumerator read, plus the node names and
// gpu ids (io_links, p2p_links, caches and mem_banks are left out).
var kfdFixtureFiles = []string{"properties", "name", "gpu_id"}

// buildGPUScenario reads the captured topology in dir and returns the
// scenario archive: its nodes verbatim, and for each physical GPU (the GPU
// nodes grouped by PCI bus and device, location_id >> 3) a PCI device
// with spec.board's amdgpu attributes, the render node of its first
// partition and the amdgpu_xcp platform devices of the others, linked as
// sysfs links them.
func buildGPUScenario(dir string, spec gpuScenarioSpec) (*fakeroot.Archive, error) {
	topo := "sys/class/kfd/kfd/topology"
	var files []fakeroot.File
	add := func(p, data string) {
		files = append(files, fakeroot.File{Path: p, Data: []byte(data), Mode: 0o644, Size: -1})
	}
	link := func(p, target string) { files = append(files, fakeroot.File{Path: p, Link: target, Size: -1}) }
	for _, f := range []string{"generation_id", "system_properties"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if os.IsNotExist(err) {
			continue // not captured (mi210-xgmi-pcie holds nodes/ only)
		}
		if err != nil {
			return nil, err
		}
		add(topo+"/"+f, string(b))
	}
	ents, err := os.ReadDir(filepath.Join(dir, "nodes"))
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, e := range ents {
		if id, err := strconv.Atoi(e.Name()); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	type part struct {
		node  int
		props source.KFDProps
	}
	byDev := map[uint64][]part{} // domain<<16 | location>>3
	for _, id := range ids {
		for _, f := range kfdFixtureFiles {
			b, err := os.ReadFile(filepath.Join(dir, "nodes", strconv.Itoa(id), f))
			if os.IsNotExist(err) && f != "properties" {
				continue
			}
			if err != nil {
				return nil, err
			}
			add(fmt.Sprintf("%s/nodes/%d/%s", topo, id, f), string(b))
			if f != "properties" {
				continue
			}
			p, bad, first := source.ParseKFDProperties(b)
			if bad != 0 {
				return nil, fmt.Errorf("node %d: %d malformed lines, the first %d: %q %s", id, bad, first.Line, first.Text, first.Why)
			}
			if v, _ := p.Get(source.KFDGfxTargetVersion); v == 0 {
				continue
			}
			dom, _ := p.Get(source.KFDDomain)
			loc, _ := p.Get(source.KFDLocationID)
			byDev[dom<<16|loc>>3] = append(byDev[dom<<16|loc>>3], part{id, p})
		}
	}
	keys := make([]uint64, 0, len(byDev))
	for k := range byDev {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	xcp := 0
	for i, k := range keys {
		parts := byDev[k]
		dom, _ := parts[0].props.Get(source.KFDDomain)
		loc, _ := parts[0].props.Get(source.KFDLocationID)
		pci := pciAddress(dom, loc&^7)
		b := spec.board(i, pci)
		dev := fmt.Sprintf("sys/devices/pci%04x:00/%04x:00:01.1/%s", dom, dom, pci)
		attrs := [][2]string{
			{"vendor", "0x1002"}, {"numa_node", strconv.Itoa(b.numa)},
			{"product_name", b.product}, {"vbios_version", b.vbios},
			{"mem_info_vram_total", strconv.FormatInt(b.vram, 10)},
			{"current_link_speed", b.linkSpeed}, {"current_link_width", strconv.Itoa(b.linkWidth)},
			{"max_link_speed", b.maxLinkSpeed}, {"max_link_width", strconv.Itoa(b.maxLinkWidth)},
		}
		if v, ok := parts[0].props.Get(source.KFDDeviceID); ok {
			attrs = append(attrs, [2]string{"device", fmt.Sprintf("0x%04x", v)})
		}
		if b.compute != "" {
			attrs = append(attrs, [2]string{"current_compute_partition", b.compute}, [2]string{"available_compute_partition", b.computeAvailable})
		}
		if b.memory != "" {
			attrs = append(attrs, [2]string{"current_memory_partition", b.memory}, [2]string{"available_memory_partition", b.memoryAvailable})
		}
		for _, a := range attrs {
			add(dev+"/"+a[0], a[1]+"\n")
		}
		for _, fw := range b.firmware {
			add(dev+"/fw_version/"+fw[0]+"_fw_version", fw[1]+"\n")
		}
		link(dev+"/driver", "../../../../bus/pci/drivers/amdgpu")
		for j, p := range parts {
			minor, _ := p.props.Get(source.KFDDRMRenderMinor)
			render := "renderD" + strconv.FormatUint(minor, 10)
			if j == 0 { // xcp 0 is the PCI device's own DRM device
				cardName := "card" + strconv.FormatUint(minor-128, 10) // render minors start at 128
				link("sys/class/drm/"+cardName, "../../"+dev[len("sys/"):]+"/drm/"+cardName)
				link(dev+"/drm/"+cardName+"/device", "../../../"+pci)
				link("sys/class/drm/"+render, "../../"+dev[len("sys/"):]+"/drm/"+render)
				link(dev+"/drm/"+render+"/device", "../../../"+pci)
				continue
			}
			plat := fmt.Sprintf("sys/devices/platform/amdgpu_xcp.%d", xcp)
			xcp++
			link("sys/class/drm/"+render, "../../"+plat[len("sys/"):]+"/drm/"+render)
			link(plat+"/drm/"+render+"/device", "../../../"+filepath.Base(plat))
		}
	}
	link("sys/bus/pci/drivers/amdgpu/module", "../../../../module/amdgpu")
	add("sys/module/amdgpu/version", "6.12.12\n")
	add("dev/kfd", "")

	comment := spec.comment + "\n\n" +
		"Real capture (verbatim): sys/class/kfd/kfd/topology/nodes/*/properties, and where\n" +
		"captured generation_id, system_properties and nodes/*/{name,gpu_id}; from the shared\n" +
		"fixture kfd/" + spec.fixture + " (the public test data of AMD's Kubernetes device plugin,\n" +
		"ROCm/k8s-device-plugin testdata/; io_links, p2p_links, caches, mem_banks left out).\n" +
		"Built (not captured): everything else — the PCI devices under sys/devices (one per\n" +
		"physical GPU: the GPU nodes grouped by location_id >> 3), their amdgpu attributes\n" +
		"(product_name, vbios_version, mem_info_vram_total, current/available_compute_partition,\n" +
		"current/available_memory_partition, fw_version/*) written from the amdgpu sysfs\n" +
		"documentation in the Linux kernel tree (Documentation/gpu/amdgpu/driver-misc.rst and the\n" +
		"attributes' kernel-doc) with plausible values, the PCI core's numa_node and link\n" +
		"attributes, the render and card links under sys/class/drm (the first partition's render\n" +
		"node is the PCI device's, the others amdgpu_xcp.N platform devices, as amdgpu_xcp.c makes\n" +
		"them), sys/module/amdgpu/version and dev/kfd.\n" +
		"Generated by: go test ./probe -run TestWriteGPUScenarios -kfd-fixtures <shared>/fixtures/kfd\n" +
		"env: TMPDIR=$ROOT/tmp\n"
	files = append(files, fakeroot.File{Path: "tmp", Dir: true, Size: -1})
	if strings.Contains(comment, "\n-- ") {
		return nil, fmt.Errorf("comment holds a section marker")
	}
	return &fakeroot.Archive{Comment: comment, Files: files}, nil
}

// mi300xCPX64 builds, under a temporary directory, an MI300X-shaped node
// in CPX mode: 8 GPUs × 8 partitions (one XCC and 38 CUs each), one hive,
// 64 kfd GPU nodes after 2 CPU nodes. It is synthesized, not captured:
// every GPU node is the first MI308X partition of gpus-mi308x-cpx with
// device_id 0x74a1 (MI300X), simd_count 152 and its own location_id,
// unique_id and render minor, as kfd numbers them on such a node. It
// returns the root.
func mi300xCPX64(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("../testdata/roots/gpus-mi308x-cpx.txtar")
	if err != nil {
		t.Fatal(err)
	}
	a, err := fakeroot.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string][]byte{}
	for _, f := range a.Files {
		props[f.Path] = f.Data
	}
	nodes := "sys/class/kfd/kfd/topology/nodes/"
	tmpl := string(props[nodes+"2/properties"])
	fixture := filepath.Join(t.TempDir(), "mi300x-cpx-64")
	write := func(p string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(fixture, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fixture, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("nodes/0/properties", props[nodes+"0/properties"])
	write("nodes/1/properties", props[nodes+"1/properties"])
	buses := []int{0x0c, 0x22, 0x38, 0x5c, 0x9f, 0xaf, 0xbf, 0xdf}
	id := 2
	for g, bus := range buses {
		for p := range 8 {
			set := map[string]string{
				"simd_count": "152", "device_id": "29857", "location_id": strconv.Itoa(bus<<8 | p),
				"drm_render_minor": strconv.Itoa(128 + 8*g + p), "unique_id": strconv.Itoa(0x3e1a0000_00000000 + g),
			}
			lines := strings.Split(tmpl, "\n")
			for i, l := range lines {
				if k, _, ok := strings.Cut(l, " "); ok && set[k] != "" {
					lines[i] = k + " " + set[k]
				}
			}
			write(fmt.Sprintf("nodes/%d/properties", id), []byte(strings.Join(lines, "\n")))
			id++
		}
	}
	spec := gpuScenarioSpec{board: func(i int, pci string) gpuBoard {
		b := gpuScenarios[0].board(i, pci)
		b.product, b.computeAvailable = "AMD Instinct MI300X", "SPX, DPX, QPX, CPX"
		return b
	}}
	arch, err := buildGPUScenario(fixture, spec)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(testtree.TempDir(t), "root")
	if err := arch.Expand(root); err != nil {
		t.Fatal(err)
	}
	return root
}
