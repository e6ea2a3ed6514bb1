package probe

import (
	"sort"
	"strings"
	"sync"
	"syscall"

	"aorta-probe/internal/pyfmt"
)

// libHash is lib-hash(dir, soname)
// (docs/rocm-libraries.md#lib-hash-candidate-order): the content hash of the
// first usable candidate among dir/soname (the dev symlink) and the
// dir/soname.* entries in libCandidates order. Each candidate is resolved
// inside the root (dangling or looping links are skipped), a target already
// tried is skipped, a non-regular target (FIFO, device, directory) is
// skipped, and a read error moves on to the next candidate. Nil when none
// hashes.
func libHash(s *state, dir, soname string) *string {
	cands := []string{dir + "/" + soname}
	if names, err := s.collector.dirNames(dir); err == nil {
		for _, n := range libCandidates(soname, names) {
			cands = append(cands, dir+"/"+n)
		}
	}
	type ident struct{ dev, ino uint64 }
	tried := map[ident]bool{}
	for _, p := range cands {
		fi, err := s.root.Stat(p)
		if err != nil {
			continue
		}
		// The resolved target, identified by device and inode (the same
		// file the resolved path names; a hard link of a tried file gives
		// the same answer, so skipping it changes nothing).
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			id := ident{uint64(st.Dev), st.Ino}
			if tried[id] {
				continue
			}
			tried[id] = true
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if sum, err := s.sha256OfPath(p); err == nil {
			return &sum
		}
	}
	return nil
}

// dirNames is the names in dir (FS.ReadDirNames), listed once per
// collection: the library blocks look up six sonames in one lib directory
// of thousands of entries. The slice is shared: callers only read it.
func (c *collector) dirNames(dir string) ([]string, error) {
	c.dirMu.Lock()
	list, ok := c.dirLists[dir]
	if !ok {
		list = sync.OnceValues(func() ([]string, error) { return c.root.ReadDirNames(dir) })
		if c.dirLists == nil {
			c.dirLists = map[string]func() ([]string, error){}
		}
		c.dirLists[dir] = list
	}
	c.dirMu.Unlock()
	return list()
}

// libCandidates orders the names of a directory listing that match the glob
// soname.* (docs/rocm-libraries.md#lib-hash-candidate-order): first those
// whose suffix after "soname." is a dot-separated list of integers, highest
// version first (1.2.0 above
// 1.2, 5.10.0 above 5.9.0), then every other match in descending string
// order. Ties of equal integer tuples ("1.02" and "1.2") fall back to
// descending name, so the order never depends on the directory order.
func libCandidates(soname string, names []string) []string {
	type cand struct {
		name string
		ver  []string // integer parts without leading zeros; nil: tier 2
	}
	var tier1, tier2 []cand
	for _, n := range names {
		suf, ok := strings.CutPrefix(n, soname+".")
		if !ok {
			continue
		}
		if v, ok := intTuple(suf); ok {
			tier1 = append(tier1, cand{n, v})
		} else {
			tier2 = append(tier2, cand{n, nil})
		}
	}
	sort.SliceStable(tier1, func(i, j int) bool {
		if c := compareTuples(tier1[i].ver, tier1[j].ver); c != 0 {
			return c > 0
		}
		return pyfmt.Less(tier1[j].name, tier1[i].name)
	})
	sort.SliceStable(tier2, func(i, j int) bool { return pyfmt.Less(tier2[j].name, tier2[i].name) })
	out := make([]string, 0, len(tier1)+len(tier2))
	for _, c := range tier1 {
		out = append(out, c.name)
	}
	for _, c := range tier2 {
		out = append(out, c.name)
	}
	return out
}

// intTuple splits "1.2.70201" into its integer parts (ASCII digits only;
// real sonames are ASCII), each without leading zeros so that the parts of
// arbitrary length compare as integers.
func intTuple(s string) ([]string, bool) {
	if s == "" {
		return nil, false
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		if p == "" {
			return nil, false
		}
		for j := 0; j < len(p); j++ {
			if p[j] < '0' || p[j] > '9' {
				return nil, false
			}
		}
		if p = strings.TrimLeft(p, "0"); p == "" {
			p = "0"
		}
		parts[i] = p
	}
	return parts, true
}

// compareTuples compares integer tuples as Python compares tuples of int:
// element-wise, a proper prefix sorting lower.
func compareTuples(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if len(x) != len(y) {
			if len(x) < len(y) {
				return -1
			}
			return 1
		}
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
