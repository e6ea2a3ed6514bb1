package triage

import (
	"encoding/binary"
	"hash/maphash"
	"os"
	"runtime/debug"
	"slices"
)

// Fleet mode's memory (docs/triage.md, "Fleet"): documents are read a few
// at a time and dropped once flattened; what stays is one small integer
// per field and document, and documents that agree on every field share
// one row (rowPool).

// FleetGC sets the collector for fleet mode and returns what restores the
// previous setting. Each document is decoded into megabytes of short-lived
// values while what stays is a few MiB, so with GOGC=100 the collector
// would run every two or three documents. GOGC=400 lets the heap grow to
// five times what stays, within fleetMemoryLimit (a soft limit: a fleet
// whose tally needs more still gets it). A GOGC or GOMEMLIMIT given in the
// environment is left alone.
func FleetGC() (restore func()) {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if gogc || limit {
		return func() {}
	}
	oldPercent := debug.SetGCPercent(400)
	oldLimit := debug.SetMemoryLimit(fleetMemoryLimit)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// fleetMemoryLimit is fleet mode's soft heap limit.
const fleetMemoryLimit = 40 << 20

// rowPool interns the tally's rows: every document whose fields all agree
// with an earlier one's shares that document's row, so a fleet that mostly
// agrees keeps a few rows, not one per document. Rows are never changed
// once added.
type rowPool struct {
	seed   maphash.Seed
	byHash map[uint64][][]int32
	buf    []byte
}

func (p *rowPool) intern(row []int32) []int32 {
	if p.byHash == nil {
		p.seed, p.byHash = maphash.MakeSeed(), map[uint64][][]int32{}
	}
	p.buf = p.buf[:0]
	for _, id := range row {
		p.buf = binary.LittleEndian.AppendUint32(p.buf, uint32(id))
	}
	h := maphash.Bytes(p.seed, p.buf)
	for _, r := range p.byHash[h] {
		if slices.Equal(r, row) {
			return r
		}
	}
	row = slices.Clip(row)
	p.byHash[h] = append(p.byHash[h], row)
	return row
}
