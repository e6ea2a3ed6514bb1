package source

import (
	"strconv"
	"strings"
)

// NUMANodesMax bounds the nodes listed (MAX_NUMNODES is 1024 at most).
const NUMANodesMax = 1024

// NUMANode is one /sys/devices/system/node/node<N>.
type NUMANode struct {
	ID   int // N
	CPUs int // CPUs in node<N>/cpulist; 0 for a memory-only node (HBM, CXL)
}

// NUMANodes lists /sys/devices/system/node/node<N> and reads each
// cpulist, in directory order.
func (fs FS) NUMANodes() ([]NUMANode, error) {
	const dir = "/sys/devices/system/node"
	es, more, err := fs.m.ReadDirMax(dir, NUMANodesMax+16)
	if err != nil {
		return nil, readErr(dir, err)
	}
	if more {
		return nil, parseErr(dir, "too many entries")
	}
	out := []NUMANode{}
	for _, e := range es {
		n, ok := strings.CutPrefix(e.Name(), "node")
		id, err := strconv.Atoi(n)
		if !ok || err != nil || id < 0 {
			continue
		}
		p := dir + "/" + e.Name() + "/cpulist"
		b, err := fs.m.ReadFile(p, AttrMax)
		if err != nil {
			return nil, readErr(p, err)
		}
		l, ok := ParseCPUList(string(b))
		if !ok {
			return nil, parseErr(p, "not a CPU range list")
		}
		out = append(out, NUMANode{ID: id, CPUs: len(l)})
	}
	return out, nil
}
