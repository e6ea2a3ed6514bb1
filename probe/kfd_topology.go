package probe

import (
	"bytes"
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
// a GPU of its own (the block stays under 4 MiB: gpus_bounds.go).
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

// kfdFault is the first line of a properties file that is not what kfd
// writes: its number (from 1), its text without the line end, and what is
// wrong with it.
type kfdFault struct {
	line int
	text string
	why  string
}

// parseKFDProperties parses a kfd node's properties file. kfd writes one
// "name value" line per property (node_show: "%s %u\n" or "%s %llu\n"),
// the name lower-case letters, digits and underscores, the value an
// unsigned decimal, each name once, every line ended by "\n". A line of
// another shape (CRLF, tab, a sign, hex, a name without value), a name
// the block uses seen again, or a last line without its "\n" (a file
// cut short) is counted in bad, the first of them in first; its value is
// not used. Blank lines and leading zeros leave no value in doubt and are
// accepted. Names the block does not use are checked for shape and
// otherwise ignored.
func parseKFDProperties(b []byte) (props kfdProps, bad int, first kfdFault) {
	fault := func(n int, line []byte, why string) {
		if bad == 0 {
			first = kfdFault{line: n, text: string(line), why: why}
		}
		bad++
	}
	for n := 1; len(b) > 0; n++ {
		line, rest, ended := bytes.Cut(b, []byte{'\n'})
		b = rest
		if len(line) == 0 {
			continue
		}
		if !ended {
			fault(n, line, "is cut short (no line end)")
			break
		}
		name, val, ok := bytes.Cut(line, []byte{' '})
		if !ok || !kfdName(name) {
			fault(n, line, "is not a name and a value")
			continue
		}
		v, err := strconv.ParseUint(string(val), 10, 64)
		if err != nil {
			fault(n, line, "has a value that is not an unsigned decimal")
			continue
		}
		p, ok := kfdPropByName[string(name)]
		switch {
		case !ok:
		case props.has[p]:
			fault(n, line, "repeats "+kfdPropNames[p])
		default:
			props.val[p], props.has[p] = v, true
		}
	}
	return props, bad, first
}

// kfdName reports whether b is a property name as kfd writes them:
// lower-case letters, digits and underscores.
func kfdName(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return len(b) > 0
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

// kfdGenerationID is kfd's topology generation: a counter kfd increments
// each time the topology changes (a node added or removed, a partition
// mode switched; kfd_topology.c, sys_props.generation_count, "%u").
const kfdGenerationID = "/sys/class/kfd/kfd/topology/generation_id"

// readKFDTopology reads every node of the kfd topology under root, in
// node-id order (readKFDNodes). reason is non-empty when the topology is
// missing, not wholly readable or not as kfd writes it, or changed while
// it was read: the nodes read are still returned, but counts built on
// them would be a guess.
//
// kfd's generation_id is read before and after the nodes; when it
// changed, the nodes are read once more, and when it changes again the
// reason says so. Without a readable generation_id (a tree built by hand,
// a capture that lacks it) the nodes are read once, unchecked.
func readKFDTopology(root *machine.FS, workers int) (nodes []kfdNode, reason string) {
	before, ok := kfdGeneration(root)
	nodes, reason = readKFDNodes(root, workers)
	after, ok2 := kfdGeneration(root)
	if !ok || !ok2 || before == after {
		return nodes, reason
	}
	nodes, reason = readKFDNodes(root, workers)
	again, ok := kfdGeneration(root)
	if ok && again != after {
		reason = fmt.Sprintf("the kfd topology changed while it was read, twice (%s went from %d to %d, then to %d): no count is sure",
			kfdGenerationID, before, after, again)
	}
	return nodes, reason
}

// kfdGeneration is kfd's generation_id; false when it cannot be read or
// is not the one unsigned decimal kfd writes.
func kfdGeneration(root *machine.FS) (uint64, bool) {
	b, err := root.ReadFile(kfdGenerationID, 64)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(string(bytes.TrimSuffix(b, []byte{'\n'})), 10, 64)
	return v, err == nil
}

// readKFDNodes reads every node of the kfd topology under root, in
// node-id order; reason as readKFDTopology's.
//
// Source: /sys/class/kfd/kfd/topology/nodes/<id>/properties; entries whose
// name is not a decimal id are not nodes and are skipped. The files are
// read on up to workers goroutines. A node whose file cannot be read, or
// is not as kfd writes it (kfdUnusable), is left out, and the reason names
// the first such node.
func readKFDNodes(root *machine.FS, workers int) (nodes []kfdNode, reason string) {
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
		props    kfdProps
		err      error
		unusable string
	}
	reads := make([]read, len(ids))
	spread(len(ids), workers, func(i int) {
		b, err := root.ReadFile(kfdProperties(ids[i]), kfdPropertiesMax)
		if err != nil {
			reads[i].err = err
			return
		}
		reads[i].props, reads[i].unusable = kfdUnusable(ids[i], b)
	})
	nodes = make([]kfdNode, 0, len(ids))
	for i, id := range ids {
		if err := reads[i].err; err != nil {
			if reason == "" {
				reason = fmt.Sprintf("%s unreadable (%s: %s)", kfdProperties(id), pyfmt.ExcType(err), pyfmt.ExcStr(err))
			}
			continue
		}
		if why := reads[i].unusable; why != "" {
			if reason == "" {
				reason = why
			}
			continue
		}
		nodes = append(nodes, kfdNode{id: id, props: reads[i].props})
	}
	return nodes, reason
}

// kfdUnusable parses node id's properties file b; why is non-empty when
// the file is not as kfd writes it, so that the node cannot be told a CPU
// or a GPU: a line parseKFDProperties counts as bad, an empty file, or
// neither gfx_target_version nor simd_count (kfd writes simd_count on
// every kernel). why names the file and the line, as the block's reason.
func kfdUnusable(id int, b []byte) (props kfdProps, why string) {
	props, bad, first := parseKFDProperties(b)
	var what string
	switch {
	case bad > 0:
		text := pyfmt.FirstRunes(first.text, 60)
		if len(text) < len(first.text) {
			text += "…"
		}
		what = fmt.Sprintf("line %d (%s) %s", first.line, pyfmt.Repr(text), first.why)
		if bad > 1 {
			what += fmt.Sprintf(" (and %d more lines not as kfd writes them)", bad-1)
		}
	case len(bytes.TrimSpace(b)) == 0:
		what = "is empty"
	case !props.has[kfdGfxTargetVersion] && !props.has[kfdSIMDCount]:
		what = "has neither gfx_target_version nor simd_count"
	default:
		return props, ""
	}
	return props, fmt.Sprintf("%s %s: node %d might be a GPU, so no count is sure", kfdProperties(id), what, id)
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
