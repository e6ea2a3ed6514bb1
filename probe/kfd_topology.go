package probe

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
)

// kfdNodesDir is the kfd topology: one directory per CPU or GPU node (a
// whole GPU, or one compute partition of it), each with a properties file
// (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are).
const kfdNodesDir = "/sys/class/kfd/kfd/topology/nodes"

// Bounds of the kfd read (docs/hardware.md, "Bounds"): a real properties
// file is about 1 KiB, and a real topology holds a few dozen nodes (8
// GPUs × 8 partitions + the CPUs). A nodes/ directory with more than
// kfdMaxNodes entries of any kind is not a kfd topology: it is listed no
// further and not read, so what it costs is bounded by the cap, never by
// the directory. kfdMaxNodes also bounds the document: each node can be
// a GPU of its own (gpusDocumentMax).
const (
	kfdPropertiesMax = 64 << 10
	kfdMaxNodes      = 1024
)

// kfdProp names the properties the gpus block uses, as kfd writes them
// (drivers/gpu/drm/amd/amdkfd/kfd_topology.c, node_show): one
// "name value" line each, the value an unsigned decimal.
type kfdProp int

const (
	kfdSIMDCount kfdProp = iota
	kfdSIMDPerCU
	kfdGfxTargetVersion
	kfdVendorID
	kfdDeviceID
	kfdLocationID
	kfdDomain
	kfdDRMRenderMinor
	kfdHiveID
	kfdFWVersion
	kfdSDMAFWVersion
	kfdUniqueID
	kfdNumXCC
	kfdPropCount
)

var kfdPropNames = [kfdPropCount]string{
	kfdSIMDCount:        "simd_count",
	kfdSIMDPerCU:        "simd_per_cu",
	kfdGfxTargetVersion: "gfx_target_version",
	kfdVendorID:         "vendor_id",
	kfdDeviceID:         "device_id",
	kfdLocationID:       "location_id",
	kfdDomain:           "domain",
	kfdDRMRenderMinor:   "drm_render_minor",
	kfdHiveID:           "hive_id",
	kfdFWVersion:        "fw_version",
	kfdSDMAFWVersion:    "sdma_fw_version",
	kfdUniqueID:         "unique_id",
	kfdNumXCC:           "num_xcc",
}

// kfdPropByName is kfdPropNames inverted.
var kfdPropByName = func() map[string]kfdProp {
	m := make(map[string]kfdProp, kfdPropCount)
	for p, n := range kfdPropNames {
		m[n] = kfdProp(p)
	}
	return m
}()

// kfdProps is one node's properties: the values of the properties the
// block uses, and which of them the file had.
type kfdProps struct {
	val [kfdPropCount]uint64
	has [kfdPropCount]bool
}

// get returns property p and whether the file had it.
func (k *kfdProps) get(p kfdProp) (uint64, bool) { return k.val[p], k.has[p] }

// parseKFDProperties parses a kfd node's properties file. Each line is
// "name value" (one space; the kernel writes "%s %llu"); a line of another
// shape, or whose value is not an unsigned 64-bit decimal, is skipped and
// counted in bad. The first line of a name counts (the kernel writes each
// once). Names the block does not use are ignored.
func parseKFDProperties(b []byte) (props kfdProps, bad int) {
	for len(b) > 0 {
		var line []byte
		if i := indexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			line, b = b, nil
		}
		if len(line) == 0 {
			continue
		}
		sp := indexByte(line, ' ')
		if sp <= 0 {
			bad++
			continue
		}
		p, ok := kfdPropByName[string(line[:sp])]
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(string(line[sp+1:]), 10, 64)
		if err != nil {
			bad++
			continue
		}
		if !props.has[p] {
			props.val[p], props.has[p] = v, true
		}
	}
	return props, bad
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// kfdNode is one node of the topology.
type kfdNode struct {
	id    int
	props kfdProps
}

// gpu reports whether the node is a GPU (or a partition of one): a
// non-zero gfx_target_version, rocm_agent_enumerator's rule; on an older
// kernel that writes no gfx_target_version, simd_count > 0 (CPU nodes
// have none).
func (n *kfdNode) gpu() bool {
	if v, ok := n.props.get(kfdGfxTargetVersion); ok {
		return v != 0
	}
	v, _ := n.props.get(kfdSIMDCount)
	return v > 0
}

// readKFDTopology reads every node of the kfd topology under root, in
// node-id order. reason is non-empty when the topology is missing or not
// wholly readable: the nodes read are still returned, but counts built on
// them would be a guess.
//
// Source: /sys/class/kfd/kfd/topology/nodes/<id>/properties; entries whose
// name is not a decimal id are not nodes and are skipped. The files are
// read on up to workers goroutines.
func readKFDTopology(root *machine.FS, workers int) (nodes []kfdNode, reason string) {
	ents, more, err := root.ReadDirMax(kfdNodesDir, kfdMaxNodes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "no kfd topology (" + kfdNodesDir + " does not exist: amdgpu not loaded, no AMD GPU, or /sys not mounted in this container)"
		}
		return nil, fmt.Sprintf("%s unreadable (%s: %s)", kfdNodesDir, pyfmt.ExcType(err), pyfmt.ExcStr(err))
	}
	if more {
		return nil, fmt.Sprintf("%s holds more than %d entries: not read (the cap on kfd nodes)", kfdNodesDir, kfdMaxNodes)
	}
	ids := make([]int, 0, len(ents))
	for _, e := range ents {
		name := e.Name()
		id, err := strconv.Atoi(name)
		if err != nil || id < 0 || strconv.Itoa(id) != name {
			continue
		}
		ids = append(ids, id)
	}
	sort.Ints(ids)
	type read struct {
		props kfdProps
		err   error
	}
	reads := make([]read, len(ids))
	spread(len(ids), workers, func(i int) {
		b, err := root.ReadFile(kfdProperties(ids[i]), kfdPropertiesMax)
		if err != nil {
			reads[i].err = err
			return
		}
		reads[i].props, _ = parseKFDProperties(b)
	})
	nodes = make([]kfdNode, 0, len(ids))
	for i, id := range ids {
		if err := reads[i].err; err != nil {
			if reason == "" {
				reason = fmt.Sprintf("%s unreadable (%s: %s)", kfdProperties(id), pyfmt.ExcType(err), pyfmt.ExcStr(err))
			}
			continue
		}
		nodes = append(nodes, kfdNode{id: id, props: reads[i].props})
	}
	return nodes, reason
}

func kfdProperties(id int) string { return kfdNodesDir + "/" + strconv.Itoa(id) + "/properties" }

// spread calls f(0) … f(n-1) on up to workers goroutines (one after
// another when workers <= 1) and returns when all have; a panic in f is
// raised again here (parallel).
func spread(n, workers int, f func(i int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	workers = min(workers, n)
	fns := make([]func(), workers)
	for w := range workers {
		fns[w] = func() {
			for i := w; i < n; i += workers {
				f(i)
			}
		}
	}
	parallel(fns...)
}

// gfxTarget is rocm_agent_enumerator's name of a gfx_target_version
// (readFromKFD): "gfx" + major in decimal + minor and stepping in hex,
// where the version is major*10000 + minor*100 + stepping.
func gfxTarget(v uint64) string {
	return "gfx" + strconv.FormatUint(v/10000%100, 10) + strconv.FormatUint(v/100%100, 16) + strconv.FormatUint(v%100, 16)
}

// pciAddress is the domain:bus:device.function of kfd domain and
// location_id (bus << 8 | device << 3 | function), as lspci -D writes it.
func pciAddress(domain, location uint64) string {
	return fmt.Sprintf("%04x:%02x:%02x.%x", domain, location>>8&0xff, location>>3&0x1f, location&7)
}
