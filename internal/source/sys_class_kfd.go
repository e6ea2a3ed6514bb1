package source

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"

	"aorta-probe/internal/parallel"
)

// KFDNodesDir is the kfd topology: one directory per CPU or GPU node (a
// whole GPU, or one compute partition of it), each with a properties file
// (docs/hardware.md#probe_provenancegpus--the-gpus-as-they-really-are).
const KFDNodesDir = "/sys/class/kfd/kfd/topology/nodes"

// KFDGenerationID is kfd's topology generation: a counter kfd increments
// each time the topology changes (a node added or removed, a partition
// mode switched; kfd_topology.c, sys_props.generation_count, "%u").
const KFDGenerationID = "/sys/class/kfd/kfd/topology/generation_id"

// Bounds of the kfd read (docs/hardware.md, "Bounds"): a real properties
// file is about 1 KiB, and a real topology holds a few dozen nodes (8
// GPUs × 8 partitions + the CPUs). A nodes/ directory with more than
// KFDMaxNodes entries of any kind is not a kfd topology: it is listed no
// further and not read (ErrCap), so what it costs is bounded by the cap,
// never by the directory.
const (
	KFDPropertiesMax = 64 << 10
	KFDMaxNodes      = 1024
)

// KFDProperties is the properties file of node id.
func KFDProperties(id int) string { return KFDNodesDir + "/" + strconv.Itoa(id) + "/properties" }

// KFDProp names a property the gpus block uses, as kfd writes it
// (drivers/gpu/drm/amd/amdkfd/kfd_topology.c, node_show): one
// "name value" line each, the value an unsigned decimal.
type KFDProp int

const (
	KFDSIMDCount KFDProp = iota
	KFDSIMDPerCU
	KFDGfxTargetVersion
	KFDVendorID
	KFDDeviceID
	KFDLocationID
	KFDDomain
	KFDDRMRenderMinor
	KFDHiveID
	KFDFWVersion
	KFDSDMAFWVersion
	KFDUniqueID
	KFDNumXCC
	kfdPropCount
)

var kfdPropNames = [kfdPropCount]string{
	KFDSIMDCount:        "simd_count",
	KFDSIMDPerCU:        "simd_per_cu",
	KFDGfxTargetVersion: "gfx_target_version",
	KFDVendorID:         "vendor_id",
	KFDDeviceID:         "device_id",
	KFDLocationID:       "location_id",
	KFDDomain:           "domain",
	KFDDRMRenderMinor:   "drm_render_minor",
	KFDHiveID:           "hive_id",
	KFDFWVersion:        "fw_version",
	KFDSDMAFWVersion:    "sdma_fw_version",
	KFDUniqueID:         "unique_id",
	KFDNumXCC:           "num_xcc",
}

// String is the property's name in the file.
func (p KFDProp) String() string { return kfdPropNames[p] }

// kfdPropByName is kfdPropNames inverted.
var kfdPropByName = func() map[string]KFDProp {
	m := make(map[string]KFDProp, kfdPropCount)
	for p, n := range kfdPropNames {
		m[n] = KFDProp(p)
	}
	return m
}()

// KFDProps is one node's properties: the values of the properties the
// block uses, and which of them the file had.
type KFDProps struct {
	val [kfdPropCount]uint64
	has [kfdPropCount]bool
}

// Get returns property p and whether the file had it.
func (k *KFDProps) Get(p KFDProp) (uint64, bool) { return k.val[p], k.has[p] }

// KFDFault is the first line of a properties file that is not what kfd
// writes: its number (from 1), its text without the line end, and what is
// wrong with it.
type KFDFault struct {
	Line int
	Text string
	Why  string
}

// ParseKFDProperties parses a kfd node's properties file. kfd writes one
// "name value" line per property (node_show: "%s %u\n" or "%s %llu\n"),
// the name lower-case letters, digits and underscores, the value an
// unsigned decimal, each name once, every line ended by "\n". A line of
// another shape (CRLF, tab, a sign, hex, a name without value), a name
// the block uses seen again, or a last line without its "\n" (a file
// cut short) is counted in bad, the first of them in first; its value is
// not used. Blank lines and leading zeros leave no value in doubt and are
// accepted. Names the block does not use are checked for shape and
// otherwise ignored.
func ParseKFDProperties(b []byte) (props KFDProps, bad int, first KFDFault) {
	fault := func(n int, line []byte, why string) {
		if bad == 0 {
			first = KFDFault{Line: n, Text: string(line), Why: why}
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

// KFDNode is one node of the topology: its id (the directory's name) and
// its properties.
type KFDNode struct {
	ID    int
	Props KFDProps
}

// GPU reports whether the node is a GPU (or a partition of one): a
// non-zero gfx_target_version, rocm_agent_enumerator's rule; on an older
// kernel that writes no gfx_target_version, simd_count > 0 (CPU nodes
// have none).
func (n *KFDNode) GPU() bool {
	if v, ok := n.Props.Get(KFDGfxTargetVersion); ok {
		return v != 0
	}
	v, _ := n.Props.Get(KFDSIMDCount)
	return v > 0
}

// KFDPropertiesError says why a node's properties file is not as kfd
// writes it, so that the node cannot be told a CPU or a GPU: lines
// ParseKFDProperties counts as bad (Bad, the first of them First), else
// a file with no line at all (Empty), else one with neither
// gfx_target_version nor simd_count (kfd writes simd_count on every
// kernel). It is the Err of an ErrParse whose Path is the file.
type KFDPropertiesError struct {
	Node  int
	Bad   int
	First KFDFault
	Empty bool
}

func (e *KFDPropertiesError) Error() string {
	switch {
	case e.Bad > 0:
		return fmt.Sprintf("line %d %s (%d bad lines)", e.First.Line, e.First.Why, e.Bad)
	case e.Empty:
		return "empty"
	}
	return "neither gfx_target_version nor simd_count"
}

// KFDGenerations is the generation_id seen before and after each of the
// two reads of a topology that changed under both: the Err of an
// ErrChanged whose Path is KFDGenerationID.
type KFDGenerations struct{ Before, After, Again uint64 }

func (g *KFDGenerations) Error() string {
	return fmt.Sprintf("%d to %d, then to %d", g.Before, g.After, g.Again)
}

// KFDNodes reads every node of the kfd topology, in node-id order, the
// properties files on up to workers goroutines.
//
// Source: /sys/class/kfd/kfd/topology/nodes/<id>/properties; entries
// whose name is not a decimal id are not nodes and are skipped. nodes is
// nil, with the error, when the directory cannot be listed (ErrRead) or
// holds more than KFDMaxNodes entries (ErrCap). A node whose file cannot
// be read (ErrRead) or is not as kfd writes it (ErrParse of a
// *KFDPropertiesError) is left out, and err is the first such node's:
// the nodes read are still returned, but counts built on them would be a
// guess.
//
// kfd's generation_id is read before and after the nodes; when it
// changed, the nodes are read once more, and when it changes again err
// is ErrChanged (a *KFDGenerations). Without a readable generation_id (a
// tree built by hand, a capture that lacks it) the nodes are read once,
// unchecked.
func (fs FS) KFDNodes(workers int) (nodes []KFDNode, err error) {
	before, ok := fs.kfdGeneration()
	nodes, err = fs.kfdNodesOnce(workers)
	after, ok2 := fs.kfdGeneration()
	if !ok || !ok2 || before == after {
		return nodes, err
	}
	nodes, err = fs.kfdNodesOnce(workers)
	again, ok := fs.kfdGeneration()
	if ok && again != after {
		err = &Error{Kind: ErrChanged, Path: KFDGenerationID, Err: &KFDGenerations{before, after, again}}
	}
	return nodes, err
}

// kfdGeneration is kfd's generation_id; false when it cannot be read or
// is not the one unsigned decimal kfd writes.
func (fs FS) kfdGeneration() (uint64, bool) {
	b, err := fs.m.ReadFile(KFDGenerationID, 64)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(string(bytes.TrimSuffix(b, []byte{'\n'})), 10, 64)
	return v, err == nil
}

// kfdNodesOnce is one read of every node, as KFDNodes without the
// generation check.
func (fs FS) kfdNodesOnce(workers int) ([]KFDNode, error) {
	ents, more, err := fs.m.ReadDirMax(KFDNodesDir, KFDMaxNodes)
	if err != nil {
		return nil, readErr(KFDNodesDir, err)
	}
	if more {
		return nil, &Error{Kind: ErrCap, Path: KFDNodesDir, Err: fmt.Errorf("more than %d entries", KFDMaxNodes)}
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
		props KFDProps
		err   error
	}
	reads := make([]read, len(ids))
	parallel.Spread(len(ids), workers, func(i int) {
		p := KFDProperties(ids[i])
		b, err := fs.m.ReadFile(p, KFDPropertiesMax)
		if err != nil {
			reads[i].err = readErr(p, err)
			return
		}
		reads[i].props, reads[i].err = KFDUsable(ids[i], b)
	})
	var first error
	nodes := make([]KFDNode, 0, len(ids))
	for i, id := range ids {
		if err := reads[i].err; err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		nodes = append(nodes, KFDNode{ID: id, Props: reads[i].props})
	}
	return nodes, first
}

// KFDUsable parses node id's properties file b as KFDNodes takes it:
// the error is an ErrParse of a *KFDPropertiesError when the file is not
// as kfd writes it.
func KFDUsable(id int, b []byte) (KFDProps, error) {
	props, bad, first := ParseKFDProperties(b)
	e := &KFDPropertiesError{Node: id, Bad: bad, First: first}
	switch {
	case bad > 0:
	case len(bytes.TrimSpace(b)) == 0:
		e.Empty = true
	case !props.has[KFDGfxTargetVersion] && !props.has[KFDSIMDCount]:
	default:
		return props, nil
	}
	return props, &Error{Kind: ErrParse, Path: KFDProperties(id), Err: e}
}
