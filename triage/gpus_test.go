package triage

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
	"aorta-probe/schema"
)

var (
	gpus       = testdoc.GPUs
	gpusOnNode = testdoc.GPUsOnNode
	onDevice   = testdoc.OnDevice
	setGPUs    = testdoc.SetGPUs
)

// TestGPUsFixtureIsSchema: the block the tests build is a schema.GPUs, key
// for key in the schema's order (decoding it and encoding it again gives
// the same text), so what triage is tested on is what the probe writes.
func TestGPUsFixtureIsSchema(t *testing.T) {
	for _, mode := range []string{"SPX", "CPX"} {
		want := string(pyjson.Encode(gpus(t, mode)))
		var g schema.GPUs
		if err := pyjson.Unmarshal(want, &g); err != nil {
			t.Fatal(err)
		}
		if got := string(pyjson.Encode(g)); got != want {
			t.Errorf("%s: the test block is not schema.GPUs:\n got %s\nwant %s", mode, got, want)
		}
	}
}

// diffRow is a difference as the tests expect it: key (without
// "probe_provenance.gpus."), A and B as the text report shows them.
type diffRow struct{ key, a, b string }

func hardwareRows(r *Result) []diffRow {
	var out []diffRow
	for _, d := range r.Differences {
		if d.Group == GroupHardware {
			out = append(out, diffRow{strings.TrimPrefix(d.Key, gpusKey+"."), display(d.A), display(d.B)})
		}
	}
	return out
}

// TestHardwareDifferences: two nodes' GPUs, differing the ways real nodes
// do, ranked in the hardware group: partition modes, firmware, VBIOS,
// PCIe link downgrade and VRAM first, the rest after; the serials, PCI
// addresses and sysfs paths that differ between any two nodes never. B is
// another machine (another boot fingerprint): an attribute differs by its
// values and their counts, the addresses only illustrate.
func TestHardwareDifferences(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	base := []edit{placed, proven}
	node := func(n int, mode string, e ...testdoc.GPUDeviceEdit) []edit {
		return append(base[:len(base):len(base)], setGPUs(gpusOnNode(t, n, mode, e...)))
	}
	// other is node on another machine.
	other := func(n int, mode string, e ...testdoc.GPUDeviceEdit) []edit {
		return append(node(n, mode, e...), testdoc.Identity("boot:bb", testdoc.HostIDs, nil))
	}
	all := func(path string, v any) testdoc.GPUDeviceEdit {
		return func(t testing.TB, i int, d testdoc.Object) testdoc.Object {
			return onDevice(i, path, v)(t, i, d)
		}
	}
	// firmware sets the version of one fw_version file on device i, or
	// on every device when i < 0.
	firmware := func(i int, name, version string) testdoc.GPUDeviceEdit {
		return func(t testing.TB, j int, d testdoc.Object) testdoc.Object {
			if i >= 0 && j != i {
				return d
			}
			v, _ := d.Get("firmware")
			var fw []any
			for _, f := range v.([]any) {
				if n, _ := f.(testdoc.Object).Get("name"); n == name {
					f = testdoc.Object{{Key: "name", Value: name}, {Key: "version", Value: version}}
				}
				fw = append(fw, f)
			}
			return onDevice(j, "firmware", fw)(t, j, d)
		}
	}
	cases := []struct {
		name string
		a, b []edit
		want []diffRow
	}{
		{
			name: "same GPUs on another node: serials, hive id, addresses and paths are not drift",
			a:    node(0, "CPX"),
			b: other(1, "CPX", onDevice(2, "pci", "0000:90:00.0"), all("drm_device", "/sys/class/drm/renderD200/device"),
				onDevice(3, "drm_reason", "x")),
			want: nil,
		},
		{
			name: "compute partition mode CPX vs SPX",
			a:    node(0, "CPX"), b: other(1, "SPX"),
			want: []diffRow{
				{"devices[].compute_partition", "CPX", "SPX"},
				{"partition_count", "32", "8"},
				{"devices[].partitions", "4", "1"},
			},
		},
		{
			name: "one GPU in another compute partition mode",
			a:    node(0, "CPX"), b: other(0, "CPX", onDevice(5, "compute_partition", "SPX")),
			want: []diffRow{{"devices[].compute_partition", "CPX", "CPX ×7; SPX ×1 (0001:81:00.0)"}},
		},
		{
			name: "memory partition mode",
			a:    node(0, "CPX"), b: other(0, "CPX", all("memory_partition", "NPS4")),
			want: []diffRow{{"devices[].memory_partition", "NPS1", "NPS4"}},
		},
		{
			name: "firmware on two GPUs, MEC on all",
			a:    node(0, "SPX"),
			b: other(0, "SPX", firmware(1, "sos", "0x00240011"), firmware(6, "sos", "0x00240011"),
				all("fw_version", pyjson.Number("151"))),
			want: []diffRow{
				{"devices[].firmware.sos", "0x00240010", "0x00240010 ×6; 0x00240011 ×2 (0000:80:00.0, 0001:a5:00.0)"},
				{"devices[].fw_version", "149", "151"},
			},
		},
		{
			name: "VBIOS",
			a:    node(0, "SPX"), b: other(0, "SPX", all("vbios_version", "113-M3080202-101")),
			want: []diffRow{{"devices[].vbios_version", "113-M3080202-100", "113-M3080202-101"}},
		},
		{
			name: "PCIe link trained below its maximum on one GPU",
			a:    node(0, "SPX"), b: other(0, "SPX", onDevice(0, "pcie.current_link_speed", "16.0 GT/s PCIe"), onDevice(7, "pcie.current_link_width", pyjson.Number("8"))),
			want: []diffRow{{"devices[].pcie.link", "32.0 GT/s PCIe x16",
				"32.0 GT/s PCIe x16 ×6; 16.0 GT/s PCIe x16 (below max 32.0 GT/s PCIe x16) ×1 (0000:0a:00.0); 32.0 GT/s PCIe x8 (below max 32.0 GT/s PCIe x16) ×1 (0001:c9:00.0)"}},
		},
		{
			name: "VRAM",
			a:    node(0, "SPX"), b: other(0, "SPX", onDevice(4, "vram_bytes", pyjson.Number("206141652000"))),
			want: []diffRow{{"devices[].vram_bytes", "206141652992", "206141652992 ×7; 206141652000 ×1 (0001:0b:00.0)"}},
		},
		{
			name: "everything at once, in rank order",
			a:    node(0, "CPX"),
			b: other(1, "SPX", all("vram_bytes", pyjson.Number("1")), all("numa_node", pyjson.Number("-1")), all("vbios_version", "v"),
				all("pcie.current_link_speed", "2.5 GT/s PCIe"), firmware(-1, "mec", "0x1"), all("product_name", "AMD Instinct MI300X"),
				all("memory_partition", "NPS4")),
			want: []diffRow{
				{"devices[].compute_partition", "CPX", "SPX"},
				{"devices[].memory_partition", "NPS1", "NPS4"},
				{"partition_count", "32", "8"},
				{"devices[].partitions", "4", "1"},
				{"devices[].firmware.mec", "0x00000095", "0x1"},
				{"devices[].vbios_version", "113-M3080202-100", "v"},
				{"devices[].pcie.link", "32.0 GT/s PCIe x16", "2.5 GT/s PCIe x16 (below max 32.0 GT/s PCIe x16)"},
				{"devices[].vram_bytes", "206141652992", "1"},
				{"devices[].numa_node", "0 ×4; 1 ×4 (0001:0b:00.0, 0001:81:00.0, 0001:a5:00.0, 0001:c9:00.0)", "-1"},
				{"devices[].product_name", "AMD Instinct MI308X", "AMD Instinct MI300X"},
			},
		},
		{
			name: "a GPU missing, a hive smaller",
			a:    node(0, "SPX"),
			b: append(other(0, "SPX"), set("probe_provenance.gpus.physical_count", pyjson.Number("7")),
				set("probe_provenance.gpus.hives", []any{testdoc.Object{{Key: "hive_id", Value: "1"}, {Key: "devices", Value: []any{"a", "b", "c", "d", "e", "f", "g"}}}})),
			want: []diffRow{{"physical_count", "8", "7"}, {"hives", "[8]", "[7]"}},
		},
		{
			name: "no kfd on one side: the counts and the reason, no device fields",
			a:    node(0, "SPX"),
			b: append(other(0, "SPX"), setGPUs(testdoc.Object{
				{Key: "physical_count", Value: nil}, {Key: "partition_count", Value: nil}, {Key: "compute_partition", Value: nil},
				{Key: "memory_partition", Value: nil}, {Key: "hives", Value: []any{}}, {Key: "source", Value: nil},
				{Key: "reason", Value: "no /sys/class/kfd/kfd/topology/nodes"}, {Key: "devices", Value: []any{}}})),
			want: []diffRow{{"partition_count", "8", "null"}, {"physical_count", "8", "null"}, {"hives", "[8]", "[]"},
				{"reason", "null", "no /sys/class/kfd/kfd/topology/nodes"}},
		},
		{
			name: "block on one side only (an older aorta-probe): not compared",
			a:    node(0, "CPX"), b: append(other(0, "CPX"), testdoc.Del("probe_provenance.gpus")),
			want: nil,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(doc(t, "a.json", g, c.a...), doc(t, "b.json", g, c.b...))
			got := hardwareRows(r)
			if !slices.Equal(got, c.want) {
				t.Errorf("hardware differences\n got %q\nwant %q", got, c.want)
			}
			if len(got) != len(r.Differences) {
				t.Errorf("differences outside the hardware group: %q", keys(r.Differences))
			}
			if r.Verdict != DifferentPlaces {
				t.Errorf("verdict %q, want %q", r.Verdict, DifferentPlaces)
			}
			checkRenders(t, r)
		})
	}
}

// TestHardwareRanksAfterGPU: the hardware group comes after gpu_arch and
// before the libraries.
func TestHardwareRanksAfterGPU(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	r := Compare(doc(t, "a", g, placed, proven, setGPUs(gpus(t, "CPX"))),
		doc(t, "b", g, placed, proven, setGPUs(gpus(t, "SPX")), set("gpu_arch.agent_count", pyjson.Number("8")), set("hipblaslt.lib_hash", "sha256:00")))
	want := []string{"gpu_arch.agent_count", "probe_provenance.gpus.devices[].compute_partition",
		"probe_provenance.gpus.partition_count", "probe_provenance.gpus.devices[].partitions", "hipblaslt.lib_hash"}
	if got := keys(r.Differences); !slices.Equal(got, want) {
		t.Errorf("differences %q\nwant %q", got, want)
	}
}

// TestHardwareText is the text report of two nodes that differ in
// compute partition mode, the hardware block exactly.
func TestHardwareText(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	r := Compare(doc(t, "a.json", g, placed, proven, setGPUs(gpusOnNode(t, 0, "CPX"))),
		doc(t, "b.json", g, placed, proven, setGPUs(gpusOnNode(t, 1, "SPX"))))
	var text bytes.Buffer
	if err := r.Text(&text, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `Identity differences (3), most likely to change numerics first
  [hardware]
   1. probe_provenance.gpus.devices[].compute_partition
        A: CPX
        B: SPX
      why: the compute partition mode (SPX … CPX): how many XCCs and CUs each
           agent gets; the number of agents, grid sizes and the GEMM solutions
           picked per CU count change with it
   2. probe_provenance.gpus.partition_count
        A: 32
        B: 8
   3. probe_provenance.gpus.devices[].partitions
        A: 4
        B: 1
      why: the kfd agents the GPUs are split into (partitions): what the process
           enumerates and shards over
`
	if _, got, _ := strings.Cut(text.String(), "\n\nIdentity"); "Identity"+got != want {
		t.Errorf("text report ends\n%s\nwant\n%s", "Identity"+got, want)
	}
}

// TestGPULeavesHostile: blocks of the wrong shape (a hostile or broken
// document) are compared without a panic.
func TestGPULeavesHostile(t *testing.T) {
	for _, text := range []string{
		`7`,
		`{"devices":7,"hives":"x"}`,
		`{"devices":[7,null,{"pcie":3,"firmware":[1,{"name":2}],"partitions":{}}],"hives":[1,{"devices":5}]}`,
		`{"devices":[{"pcie":{"current_link_speed":"Unknown","max_link_width":"x"}},{"pcie":{}}]}`,
	} {
		d, err := withGPUs(t, "x", text)
		if err != nil {
			t.Fatal(err)
		}
		e, err := withGPUs(t, "e", `{"devices":[{}]}`)
		if err != nil {
			t.Fatal(err)
		}
		checkRenders(t, Compare(d, e))
		flatten(d)
	}
}

// FuzzGPUs: any probe_provenance.gpus block compares against a real one
// (both ways, and with itself; from another machine and from the same
// machine and boot, where devices are paired by address) and renders in
// every format without a panic, the text within 80 columns; a block
// equal to itself differs in nothing.
func FuzzGPUs(f *testing.F) {
	real := string(pyjson.Encode(gpus(f, "CPX")))
	f.Add(real)
	f.Add(`{"devices":[7,null,{"pcie":3,"firmware":[1,{"name":2}],"partitions":{}}],"hives":[1,{"devices":5}]}`)
	f.Add(`{"devices":[{"pcie":{"current_link_speed":"Unknown","max_link_speed":"8 GT/s","current_link_width":1e400}},{"firmware":null}]}`)
	f.Add(`{"physical_count":null,"reason":"no kfd","devices":[]}`)
	f.Add(`{"devices":[{"pci":"a","drm_device":null,"hive_id":1},{"pci":"a","drm_device":"x","hive_id":1}],"hives":[{"devices":["a","a"]}]}`)
	ref, err := withGPUs(f, "ref", real)
	if err != nil {
		f.Fatal(err)
	}
	sameRef, err := withGPUs(f, "ref", real, proven)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, block string) {
		d, err := withGPUs(t, "x.json", block)
		if err != nil {
			return
		}
		same, _ := withGPUs(t, "y.json", block, proven)
		for _, r := range []*Result{Compare(d, ref), Compare(ref, d), Compare(d, d), Compare(same, sameRef), Compare(sameRef, same)} {
			checkRenders(t, r)
		}
		if ds := hardwareDifferences(same, same); len(ds) != 0 {
			t.Errorf("a block differs from itself on one machine: %q", keys(ds))
		}
		if ds := hardwareDifferences(d, d); len(ds) != 0 {
			t.Errorf("a block differs from itself: %q", keys(ds))
		}
		flatten(d)
	})
}

// BenchmarkGPULeaves is the cost the hardware group adds to a fleet
// document (flatten) and to a two-document diff: the projection of an
// 8 × MI308X CPX block, and Compare of two nodes with it against Compare
// of the same documents without it.
func BenchmarkGPULeaves(b *testing.B) {
	const g = "rocm-classic-7.2.json"
	a := doc(b, "a", g, placed, proven, setGPUs(gpusOnNode(b, 0, "CPX")))
	c := doc(b, "b", g, placed, proven, setGPUs(gpusOnNode(b, 1, "SPX")))
	plainA, plainC := doc(b, "a", g, placed, proven), doc(b, "b", g, placed, proven)
	b.Run("gpuLeaves", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gpuLeaves(a)
		}
	})
	b.Run("Compare/with-gpus", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Compare(a, c)
		}
	})
	b.Run("Compare/without", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Compare(plainA, plainC)
		}
	})
}

// withGPUs is a real document (rocm-classic-7.2.json) whose
// probe_provenance.gpus is block, JSON text of any shape, with edits
// applied; an error when block is no JSON.
func withGPUs(t testing.TB, name, block string, edits ...edit) (*Document, error) {
	t.Helper()
	v, err := pyjson.Decode(block)
	if err != nil {
		return nil, err
	}
	return doc(t, name, "rocm-classic-7.2.json", append(edits, set("probe_provenance.gpus", v))...), nil
}

// withoutDevice is a GPUs block with device i gone from kfd: out of the
// devices, the counts and its hive, as the probe writes a node on which
// that GPU's kfd nodes are missing.
func withoutDevice(g testdoc.Object, i int) testdoc.Object {
	out := slices.Clone(g)
	for j, e := range out {
		switch e.Key {
		case "devices":
			devs := slices.Clone(e.Value.([]any))
			d := devs[i].(testdoc.Object)
			parts, _ := d.Get("partitions")
			total, _ := g.Get("partition_count")
			n, _ := strconv.Atoi(string(total.(pyjson.Number)))
			out[j].Value = slices.Delete(devs, i, i+1)
			for k := range out {
				switch out[k].Key {
				case "partition_count":
					out[k].Value = pyjson.Number(strconv.Itoa(n - len(parts.([]any))))
				case "physical_count":
					out[k].Value = pyjson.Number(strconv.Itoa(len(devs) - 1))
				case "hives":
					pci, _ := d.Get("pci")
					out[k].Value = leaveHive(out[k].Value.([]any), pci)
				}
			}
		}
	}
	return out
}

// leaveHive is hives without the device at pci.
func leaveHive(hives []any, pci any) []any {
	var out []any
	for _, h := range hives {
		ho := slices.Clone(h.(testdoc.Object))
		for k, e := range ho {
			if e.Key == "devices" {
				ho[k].Value = slices.DeleteFunc(slices.Clone(e.Value.([]any)), func(x any) bool { return x == pci })
			}
		}
		out = append(out, ho)
	}
	return out
}

// unreadable is a device edit: amdgpu's sysfs of device i not read (its
// render node gone), every amdgpu field null, as the probe writes it.
func unreadable(i int) testdoc.GPUDeviceEdit {
	return func(t testing.TB, j int, d testdoc.Object) testdoc.Object {
		if j != i {
			return d
		}
		for _, k := range []string{"numa_node", "product_name", "vbios_version", "vram_bytes", "compute_partition",
			"available_compute_partitions", "memory_partition", "available_memory_partitions", "firmware", "drm_device",
			"pcie.current_link_speed", "pcie.current_link_width", "pcie.max_link_speed", "pcie.max_link_width"} {
			d = onDevice(i, k, nil)(t, j, d)
		}
		return onDevice(i, "drm_reason", "/sys/class/drm/renderD144/device does not exist")(t, j, d)
	}
}

// TestHardwareSameMachine: two documents of one machine and boot (one
// boot fingerprint) name the devices that appeared, disappeared or
// changed by PCI address; a device whose amdgpu sysfs could not be read
// is one row with its drm_reason, on one machine or two.
func TestHardwareSameMachine(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	base := []edit{placed, proven}
	with := func(b testdoc.Object, e ...edit) []edit {
		return append(append(base[:len(base):len(base)], setGPUs(b)), e...)
	}
	cpx := gpus(t, "CPX")
	leaves := gpus(t, "CPX", onDevice(2, "hive_id", nil))
	for k, e := range leaves {
		if e.Key == "hives" {
			leaves[k].Value = leaveHive(e.Value.([]any), "0000:a4:00.0")
		}
	}
	anotherBoot := testdoc.Identity("boot:bb", testdoc.HostIDs, nil)
	unread := "not read: /sys/class/drm/renderD144/device does not exist"
	cases := []struct {
		name string
		b    []edit
		want []diffRow
	}{
		{"one GPU in another compute partition mode", with(gpus(t, "CPX", onDevice(5, "compute_partition", "SPX"))),
			[]diffRow{{"devices[].compute_partition", "CPX (0001:81:00.0)", "SPX (0001:81:00.0)"}}},
		{"every GPU in another mode", with(gpus(t, "SPX")),
			[]diffRow{{"devices[].compute_partition", "CPX", "SPX"}, {"partition_count", "32", "8"}, {"devices[].partitions", "4", "1"}}},
		{"a GPU gone from kfd: named, no NUMA spread", with(withoutDevice(cpx, 2)),
			[]diffRow{{"partition_count", "32", "28"}, {"physical_count", "8", "7"},
				{"devices[0000:a4:00.0]", "gfx942 (AMD Instinct MI308X), 4 partitions", "absent"}, {"hives", "[8]", "[7]"}}},
		{"a GPU left its hive", with(leaves),
			[]diffRow{{"hives", "[8]", "[7]"}, {"devices[].hive", "hive of 8 (0000:a4:00.0)", "no hive (0000:a4:00.0)"}}},
		{"one GPU's amdgpu sysfs unreadable: one row", with(gpus(t, "CPX", unreadable(2))),
			[]diffRow{{"devices[0000:a4:00.0].amdgpu_sysfs", "read", unread}}},
		{"the same on another machine", with(gpus(t, "CPX", unreadable(2)), anotherBoot),
			[]diffRow{{"devices[0000:a4:00.0].amdgpu_sysfs", "read", unread}}},
		{"a GPU gone on another machine: the counts, no address to name", with(withoutDevice(cpx, 2), anotherBoot),
			[]diffRow{{"partition_count", "32", "28"}, {"physical_count", "8", "7"}, {"hives", "[8]", "[7]"},
				{"devices[].numa_node", "0 ×4; 1 ×4 (0001:0b:00.0, 0001:81:00.0, 0001:a5:00.0, 0001:c9:00.0)",
					"1 ×4; 0 ×3 (0000:0a:00.0, 0000:80:00.0, 0000:c8:00.0)"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(doc(t, "a.json", g, with(cpx)...), doc(t, "b.json", g, c.b...))
			if got := hardwareRows(r); !slices.Equal(got, c.want) {
				t.Errorf("hardware differences\n got %q\nwant %q", got, c.want)
			}
			checkRenders(t, r)
		})
	}
}

// TestHardwareJSON: a device attribute's values in --format json are
// structured, each value with its count and devices, not the text
// report's "A ×7; B ×1 (…)".
func TestHardwareJSON(t *testing.T) {
	const g = "rocm-classic-7.2.json"
	r := Compare(doc(t, "a.json", g, placed, proven, setGPUs(gpus(t, "SPX"))),
		doc(t, "b.json", g, placed, testdoc.Identity("boot:bb", testdoc.HostIDs, nil),
			setGPUs(gpus(t, "SPX", onDevice(2, "pcie.current_link_width", pyjson.Number("8"))))))
	var js bytes.Buffer
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	type share struct {
		Value   any      `json:"value"`
		Count   int      `json:"count"`
		Devices []string `json:"devices"`
	}
	var got struct {
		Differences []struct {
			Key  string  `json:"key"`
			A, B []share `json:"-"`
			RawA any     `json:"a"`
			RawB any     `json:"b"`
		} `json:"differences"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || len(got.Differences) != 1 {
		t.Fatalf("%v\n%s", err, js.String())
	}
	d := got.Differences[0]
	var a, b []share
	ra, _ := json.Marshal(d.RawA)
	rb, _ := json.Marshal(d.RawB)
	if err := json.Unmarshal(ra, &a); err != nil {
		t.Fatalf("a: %v: %s", err, ra)
	}
	if err := json.Unmarshal(rb, &b); err != nil {
		t.Fatalf("b: %v: %s", err, rb)
	}
	all := []string{"0000:0a:00.0", "0000:80:00.0", "0000:a4:00.0", "0000:c8:00.0", "0001:0b:00.0", "0001:81:00.0", "0001:a5:00.0", "0001:c9:00.0"}
	below := "32.0 GT/s PCIe x8 (below max 32.0 GT/s PCIe x16)"
	if d.Key != "probe_provenance.gpus.devices[].pcie.link" || len(a) != 1 || a[0].Value != "32.0 GT/s PCIe x16" || a[0].Count != 8 ||
		!slices.Equal(a[0].Devices, all) || len(b) != 2 || b[0].Count != 7 || b[1].Value != below || b[1].Count != 1 ||
		!slices.Equal(b[1].Devices, []string{"0000:a4:00.0"}) {
		t.Errorf("difference %s: a %+v, b %+v", d.Key, a, b)
	}
}
