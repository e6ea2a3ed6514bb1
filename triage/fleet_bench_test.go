package triage

import (
	"os"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkFleet is fleet mode over real-shaped documents
// (internal/fleetgen: every per-node field of its own, a boot per 8
// documents), written once to a temporary directory:
// AORTA_BENCH_FLEET_N documents (default 1000) of the golden document's
// size (about 40 KB, as the probe writes them) or, with
// AORTA_BENCH_FLEET_SIZE, of about that many bytes (an --extended file
// list). Besides -benchmem's allocations it reports what the result keeps
// alive (retained-B: the live heap after a collection, the result still
// held) and per document (retained-B/doc): the tally's share of the
// memory, which must not grow with the fleet (docs/triage.md, "Fleet").
// scripts/bench-fleet.sh runs the same through the binary and reports
// wall time and peak RSS.
func BenchmarkFleet(b *testing.B) {
	n, size := 1000, 0
	for env, p := range map[string]*int{"AORTA_BENCH_FLEET_N": &n, "AORTA_BENCH_FLEET_SIZE": &size} {
		if s := os.Getenv(env); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil {
				b.Fatalf("%s: %v", env, err)
			}
			*p = v
		}
	}
	tmpl := fleetTemplate(b, size, nil)
	_, paths := writeFleet(b, n, tmpl, nil)
	b.SetBytes(int64(len(tmpl)) * int64(n))
	b.ResetTimer()
	var retained uint64
	for b.Loop() {
		r := Fleet(paths, 0)
		if r.Documents != n || len(r.Outliers) != 0 {
			b.Fatalf("documents %d, outliers %d", r.Documents, len(r.Outliers))
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		retained = max(retained, ms.HeapAlloc)
		runtime.KeepAlive(r)
		b.StartTimer()
	}
	b.ReportMetric(float64(retained), "retained-B")
	b.ReportMetric(float64(retained)/float64(n), "retained-B/doc")
}
