package probe

import (
	"fmt"
	"slices"
	"strconv"

	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// gpuGroup is one physical GPU: its kfd nodes in node order, and why it
// was kept apart from nodes that share something with it (notes, in the
// order groupGPUs finds them; nil when nothing).
type gpuGroup struct {
	nodes []*source.KFDNode
	notes []string
}

// gpuKey is what the partitions of one GPU share.
type gpuKey struct {
	place gpuPlace
	uid   uint64 // kfd unique_id, 0 when 0 or absent
	gfx   uint64 // kfd gfx_target_version
	node  int    // the node id when nothing else groups it, else -1
}

// gpuPlace is a node's PCI device: domain, bus and device of kfd domain
// and location_id, without the function bits (kfd writes a partition's
// index there); ok is false without location_id.
type gpuPlace struct {
	domain, device uint64 // device: location_id >> 3 (bus << 5 | device)
	ok             bool
}

func placeOf(n *source.KFDNode) gpuPlace {
	loc, ok := n.Props.Get(source.KFDLocationID)
	dom, _ := n.Props.Get(source.KFDDomain)
	return gpuPlace{domain: dom, device: loc >> 3, ok: ok}
}

// String is the PCI device as lspci -D names its function 0.
func (p gpuPlace) String() string { return pciAddress(p.domain, p.device<<3) }

func keyOf(n *source.KFDNode) gpuKey {
	k := gpuKey{place: placeOf(n), node: -1}
	k.uid, _ = n.Props.Get(source.KFDUniqueID)
	k.gfx, _ = n.Props.Get(source.KFDGfxTargetVersion)
	if !k.place.ok && k.uid == 0 {
		k.node = n.ID
	}
	return k
}

// groupGPUs groups the GPU nodes of nodes, in node order, into physical
// GPUs (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are):
// the nodes on one PCI device with one unique_id and one gfx target; a
// node without location_id by its non-zero unique_id and gfx target,
// else alone. unique_id alone does not make a GPU: a unique_id seen on
// two PCI devices (a copied topology, a firmware that writes one id for
// every board) is two GPUs, and a PCI device whose nodes carry two
// unique_ids or two gfx targets is not one GPU that kfd can describe:
// each such group is kept apart, and its notes say why. partitions is the
// number of GPU nodes.
func groupGPUs(nodes []source.KFDNode) (groups []gpuGroup, partitions int) {
	index := map[gpuKey]int{}
	var keys []gpuKey
	for i := range nodes {
		n := &nodes[i]
		if !n.GPU() {
			continue
		}
		partitions++
		k := keyOf(n)
		if j, ok := index[k]; ok {
			groups[j].nodes = append(groups[j].nodes, n)
			continue
		}
		index[k] = len(groups)
		keys = append(keys, k)
		groups = append(groups, gpuGroup{nodes: []*source.KFDNode{n}})
	}
	for i, why := range apartNotes(keys) {
		groups[i].notes = why
	}
	return groups, partitions
}

// apartNotes says, for each group key, why it was kept apart from the
// groups that share its unique_id or its PCI device (see groupGPUs); nil
// where none does.
func apartNotes(keys []gpuKey) [][]string {
	type uidPlace struct {
		uid   uint64
		place gpuPlace
	}
	places := map[uint64]map[gpuPlace]bool{} // unique_id → PCI devices
	uids := map[gpuPlace]map[uint64]bool{}   // PCI device → unique_ids
	gfxs := map[uidPlace]map[uint64]bool{}   // both → gfx targets
	add := func(m map[uint64]bool, v uint64) { m[v] = true }
	for _, k := range keys {
		if k.node >= 0 {
			continue
		}
		if k.uid != 0 {
			if places[k.uid] == nil {
				places[k.uid] = map[gpuPlace]bool{}
			}
			places[k.uid][k.place] = true
		}
		if k.place.ok {
			if uids[k.place] == nil {
				uids[k.place] = map[uint64]bool{}
			}
			add(uids[k.place], k.uid)
		}
		up := uidPlace{k.uid, k.place}
		if gfxs[up] == nil {
			gfxs[up] = map[uint64]bool{}
		}
		add(gfxs[up], k.gfx)
	}
	notes := make([][]string, len(keys))
	for i, k := range keys {
		if k.node >= 0 {
			continue
		}
		if n := len(places[k.uid]); k.uid != 0 && n > 1 {
			notes[i] = append(notes[i], fmt.Sprintf("unique_id %d is on %d PCI devices: a GPU is one PCI device, so each is counted apart", k.uid, n))
		}
		if n := len(uids[k.place]); k.place.ok && n > 1 {
			notes[i] = append(notes[i], fmt.Sprintf("PCI device %s has kfd nodes with %d unique_ids: each unique_id is counted apart", k.place, n))
		}
		if n := len(gfxs[uidPlace{k.uid, k.place}]); n > 1 {
			on := "unique_id " + strconv.FormatUint(k.uid, 10)
			if k.place.ok {
				on = "PCI device " + k.place.String()
			}
			notes[i] = append(notes[i], fmt.Sprintf("the kfd nodes of %s have %d gfx targets: each gfx target is counted apart", on, n))
		}
	}
	return notes
}

// setHive sets d's XGMI hive from all its partitions: kfd writes hive_id
// on each, and a partition with 0 (or none) is in the hive of the others.
// When two partitions carry different non-zero ids the GPU is in no hive,
// and d's reasons name them.
func setHive(d *schema.GPUDevice, parts []*source.KFDNode) {
	var id uint64
	at := 0
	for _, n := range parts {
		v, ok := n.Props.Get(source.KFDHiveID)
		switch {
		case !ok || v == 0 || v == id:
		case id == 0:
			id, at = v, n.ID
		default:
			d.HiveID = nil
			addReasons(d, fmt.Sprintf("its partitions disagree on hive_id (%d on kfd node %d, %d on kfd node %d): in no hive", id, at, v, n.ID))
			return
		}
	}
	if id != 0 {
		d.HiveID = schema.Str(strconv.FormatUint(id, 10))
	}
}

// addReasons appends why to d's reasons (schema.GPUDevice.Reasons).
func addReasons(d *schema.GPUDevice, why ...string) {
	if len(why) == 0 {
		return
	}
	if d.Reasons == nil {
		d.Reasons = &[]string{}
	}
	*d.Reasons = append(*d.Reasons, why...)
}

// sortGroups puts groups in PCI order (comparePCI of their first nodes).
func sortGroups(groups []gpuGroup) {
	slices.SortStableFunc(groups, func(a, b gpuGroup) int { return comparePCI(a.nodes[0], b.nodes[0]) })
}
