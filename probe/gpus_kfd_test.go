package probe

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

// kfdTree writes files (path under the root → content) into a new root.
func kfdTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := testtree.TempDir(t)
	testtree.Files(t, root, files)
	return root
}

const testNodes = "sys/class/kfd/kfd/topology/nodes/"

// TestGPUsUnusableProperties: a node whose properties are not as kfd
// writes them might be a GPU, so the counts are null and the reason names
// the file and the line; never a confident 0 (issue 32 item 1).
func TestGPUsUnusableProperties(t *testing.T) {
	cpu := "simd_count 0\ngfx_target_version 0\n"
	for _, tc := range []struct{ name, node1, reason string }{
		{"crlf (the issue's repro)", "simd_count 304\r\ngfx_target_version 90402\r\n",
			`nodes/1/properties line 1 ('simd_count 304\r') has a value that is not an unsigned decimal (and 1 more lines not as kfd writes them): node 1 might be a GPU, so no count is sure`},
		{"hex", "simd_count 0x130\ngfx_target_version 90402\n", `line 1 ('simd_count 0x130') has a value that is not an unsigned decimal`},
		{"negative", "simd_count 304\ngfx_target_version -90402\n", `line 2 ('gfx_target_version -90402') has a value`},
		{"non-numeric", "simd_count many\ngfx_target_version 90402\n", `line 1 ('simd_count many')`},
		{"names without values", "simd_count\ngfx_target_version\n", `line 1 ('simd_count') is not a name and a value (and 1 more`},
		{"empty", "", "nodes/1/properties is empty: node 1 might be a GPU"},
		{"blank", "\n\n", "nodes/1/properties is empty"},
		{"caught mid-rewrite", "simd_count 304\ngfx_target_vers", `line 2 ('gfx_target_vers') is cut short (no line end)`},
		{"no simd_count", "cpu_cores_count 0\nvendor_id 4098\n", "has neither gfx_target_version nor simd_count"},
		{"repeated", "simd_count 0\ngfx_target_version 0\ngfx_target_version 90402\n", `line 3 ('gfx_target_version 90402') repeats gfx_target_version`},
		{"long line", "simd_count " + strings.Repeat("9", 200) + "\n", `line 1 ('simd_count 9999999999999999999999999999999999999999999999999…') has a value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := kfdTree(t, map[string]string{testNodes + "0/properties": cpu, testNodes + "1/properties": tc.node1})
			g := collectGPUs(machine.NewFS(root, "/", false), 2)
			if g.PhysicalCount != nil || g.PartitionCount != nil || !strings.Contains(golden.OrNull(g.Reason), tc.reason) {
				t.Errorf("physical %s, partitions %s, reason %s\nwant null, null, a reason with %s",
					golden.OrNull(g.PhysicalCount), golden.OrNull(g.PartitionCount), golden.OrNull(g.Reason), tc.reason)
			}
		})
	}
	// The same files written as kfd writes them count: 1 GPU, 1 partition.
	root := kfdTree(t, map[string]string{testNodes + "0/properties": cpu, testNodes + "1/properties": "simd_count 304\ngfx_target_version 90402\n"})
	if g := collectGPUs(machine.NewFS(root, "/", false), 2); golden.OrNull(g.PhysicalCount) != "1" || g.Reason != nil {
		t.Errorf("well-formed: physical %s, reason %s", golden.OrNull(g.PhysicalCount), golden.OrNull(g.Reason))
	}
}

// mi308x expands the real MI308X root and applies edit to each kfd GPU
// node's properties (node id → new content).
func mi308x(t testing.TB, edit func(id int, props string) string) string {
	t.Helper()
	root := testtree.TempDir(t)
	if _, err := fakeroot.Materialize("../testdata/roots/gpus-mi308x-cpx.txtar", root); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, source.KFDNodesDir)
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		id, _ := strconv.Atoi(e.Name())
		p := filepath.Join(dir, e.Name(), "properties")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "\ngfx_target_version 0\n") {
			if err := os.WriteFile(p, []byte(edit(id, string(b))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

var uniqueIDLine = regexp.MustCompile(`(?m)^unique_id \d+$`)

// TestGPUsSharedUniqueID: every node of the real MI308X root given one
// unique_id is still 8 GPUs on 8 PCI devices, each saying why (issue 31
// item 5); the hive and partitions are unchanged.
func TestGPUsSharedUniqueID(t *testing.T) {
	root := mi308x(t, func(_ int, p string) string { return uniqueIDLine.ReplaceAllString(p, "unique_id 598046273873802902") })
	g := collectGPUs(machine.NewFS(root, "/", false), 4)
	if got := gpuSummary(g); got != "physical=8 partitions=32 gfx=gfx942 hives=[8] compute=CPX memory=NPS1" || g.Reason != nil {
		t.Errorf("got %s, reason %s", got, golden.OrNull(g.Reason))
	}
	for _, d := range g.Devices {
		want := "unique_id 598046273873802902 is on 8 PCI devices: a GPU is one PCI device, so each is counted apart"
		if d.Reasons == nil || len(*d.Reasons) != 1 || (*d.Reasons)[0] != want || len(d.Partitions) != 4 {
			t.Errorf("%s: %d partitions, reasons %s", golden.OrNull(d.PCI), len(d.Partitions), pyjson.EncodeCompact(d.Reasons))
		}
	}
	// The real root: no reasons at all.
	for _, d := range gpusOf(t, "../testdata/roots/gpus-mi308x-cpx.txtar").Devices {
		if d.Reasons != nil {
			t.Errorf("real root, %s: reasons %s", golden.OrNull(d.PCI), pyjson.EncodeCompact(d.Reasons))
		}
	}
}

// TestGPUsKeptApart: nodes on one PCI device with two unique_ids or two
// gfx targets, and nodes without location_id sharing a unique_id with two
// gfx targets, are counted apart, each with why (issue 32 item 6).
func TestGPUsKeptApart(t *testing.T) {
	node := func(loc, uid, gfx int) string {
		s := "simd_count 8\nsimd_per_cu 4\ngfx_target_version " + strconv.Itoa(gfx) + "\nunique_id " + strconv.Itoa(uid) + "\n"
		if loc >= 0 {
			s += "domain 0\nlocation_id " + strconv.Itoa(loc) + "\n"
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		nodes    []string
		physical string
		reasons  []string // of the first device, joined by "|"
	}{
		{"partitions of one GPU", []string{node(768, 7, 90402), node(769, 7, 90402)}, "1", nil},
		{"two unique_ids on one PCI device", []string{node(768, 7, 90402), node(769, 8, 90402)}, "2",
			[]string{"PCI device 0000:03:00.0 has kfd nodes with 2 unique_ids: each unique_id is counted apart"}},
		{"two gfx targets on one PCI device", []string{node(768, 7, 90402), node(769, 7, 90010), node(770, 7, 90010)}, "2",
			[]string{"the kfd nodes of PCI device 0000:03:00.0 have 2 gfx targets: each gfx target is counted apart"}},
		{"no location_id, one unique_id, two gfx targets", []string{node(-1, 7, 90402), node(-1, 7, 90010)}, "2",
			[]string{"the kfd nodes of unique_id 7 have 2 gfx targets: each gfx target is counted apart"}},
		{"no location_id, one unique_id", []string{node(-1, 7, 90402), node(-1, 7, 90402)}, "1", nil},
		{"no location_id, no unique_id", []string{node(-1, 0, 90402), node(-1, 0, 90402)}, "2", nil},
		{"no unique_id, one PCI device", []string{node(768, 0, 90402), node(769, 0, 90402)}, "1", nil},
		{"unique_id on two PCI devices", []string{node(768, 7, 90402), node(1024, 7, 90402)}, "2",
			[]string{"unique_id 7 is on 2 PCI devices: a GPU is one PCI device, so each is counted apart"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for i, n := range tc.nodes {
				files[testNodes+strconv.Itoa(i+1)+"/properties"] = n
			}
			g := collectGPUs(machine.NewFS(kfdTree(t, files), "/", false), 1)
			var got []string
			if len(g.Devices) > 0 && g.Devices[0].Reasons != nil {
				got = *g.Devices[0].Reasons
			}
			if golden.OrNull(g.PhysicalCount) != tc.physical || strings.Join(got, "|") != strings.Join(tc.reasons, "|") {
				t.Errorf("physical %s, reasons %q; want %s, %q", golden.OrNull(g.PhysicalCount), got, tc.physical, tc.reasons)
			}
			if golden.OrNull(g.PartitionCount) != strconv.Itoa(len(tc.nodes)) {
				t.Errorf("partitions %s, want %d", golden.OrNull(g.PartitionCount), len(tc.nodes))
			}
		})
	}
}

// TestGPUsHiveFromAllPartitions: a GPU whose first partition has hive_id 0
// but whose others are in a hive is in that hive; two ids is no hive and
// a reason.
func TestGPUsHiveFromAllPartitions(t *testing.T) {
	hiveLine := regexp.MustCompile(`(?m)^hive_id \d+$`)
	root := mi308x(t, func(id int, p string) string {
		switch id {
		case 2: // the first partition of 0000:0a:00.0
			return hiveLine.ReplaceAllString(p, "hive_id 0")
		case 7: // the second partition of the next GPU
			return hiveLine.ReplaceAllString(p, "hive_id 12345")
		}
		return p
	})
	g := collectGPUs(machine.NewFS(root, "/", false), 4)
	if len(g.Hives) != 1 || len(g.Hives[0].Devices) != 7 || g.Hives[0].Devices[0] != "0000:0a:00.0" {
		t.Errorf("hives %s", pyjson.EncodeCompact(g.Hives))
	}
	var d schema.GPUDevice // the GPU of kfd nodes 6 to 9
	for _, x := range g.Devices {
		if x.Partitions[0].Node == 6 {
			d = x
		}
	}
	if d.HiveID != nil || d.Reasons == nil || (*d.Reasons)[0] !=
		"its partitions disagree on hive_id (2095653680343411291 on kfd node 6, 12345 on kfd node 7): in no hive" {
		t.Errorf("%s: hive %s, reasons %s", golden.OrNull(d.PCI), golden.OrNull(d.HiveID), pyjson.EncodeCompact(d.Reasons))
	}
	if g.Devices[0].Reasons != nil || golden.OrNull(g.Devices[0].HiveID) != "2095653680343411291" {
		t.Errorf("%s: hive %s, reasons %s", golden.OrNull(g.Devices[0].PCI), golden.OrNull(g.Devices[0].HiveID), pyjson.EncodeCompact(g.Devices[0].Reasons))
	}
}

// FuzzGroupGPUs: any set of properties files (split at "\x00") groups
// every usable GPU node into exactly one group; a group's nodes share
// PCI device, unique_id and gfx target, and no two groups share all three
// (a node without either alone); a group says its unique_id is on several
// PCI devices exactly when another group has it on another device.
func FuzzGroupGPUs(f *testing.F) {
	f.Add([]byte("simd_count 8\ngfx_target_version 90402\nunique_id 7\ndomain 0\nlocation_id 768\n\x00" +
		"simd_count 8\ngfx_target_version 90402\nunique_id 7\ndomain 0\nlocation_id 1024\n\x00simd_count 0\n"))
	f.Add([]byte("simd_count 8\ngfx_target_version 90010\nunique_id 7\n\x00simd_count 8\ngfx_target_version 90402\nunique_id 7\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var nodes []source.KFDNode
		for i, file := range strings.Split(string(b), "\x00") {
			if props, err := source.KFDUsable(i, []byte(file)); err == nil {
				nodes = append(nodes, source.KFDNode{ID: i, Props: props})
			}
		}
		groups, partitions := groupGPUs(nodes)
		seen, keys := map[int]bool{}, map[gpuKey]bool{}
		for _, g := range groups {
			k := keyOf(g.nodes[0])
			if keys[k] {
				t.Fatalf("two groups of key %+v", k)
			}
			keys[k] = true
			for _, n := range g.nodes {
				if keyOf(n) != k || seen[n.ID] || !n.GPU() {
					t.Fatalf("node %d in group of key %+v", n.ID, k)
				}
				seen[n.ID] = true
			}
		}
		if len(seen) != partitions {
			t.Fatalf("%d nodes grouped, %d partitions", len(seen), partitions)
		}
		for _, n := range nodes {
			if n.GPU() != seen[n.ID] {
				t.Fatalf("node %d: gpu %v, grouped %v", n.ID, n.GPU(), seen[n.ID])
			}
		}
		for _, g := range groups {
			k := keyOf(g.nodes[0])
			elsewhere := false
			for o := range keys {
				elsewhere = elsewhere || k.uid != 0 && k.node < 0 && o.node < 0 && o.uid == k.uid && o.place != k.place
			}
			said := slices.ContainsFunc(g.notes, func(s string) bool { return strings.HasPrefix(s, "unique_id ") })
			if said != elsewhere {
				t.Fatalf("group %+v: notes %q, unique_id elsewhere %v", k, g.notes, elsewhere)
			}
		}
	})
}
