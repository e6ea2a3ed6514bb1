package triage

import (
	"os"
	"testing"
)

// BenchmarkFleet is fleet mode over AORTA_BENCH_FLEET_N documents
// (default 1000) of about 400 KB each, written once to a temporary
// directory. scripts/bench-fleet.sh runs the same through the binary and
// reports wall time and peak memory.
func BenchmarkFleet(b *testing.B) {
	n := 1000
	if s := os.Getenv("AORTA_BENCH_FLEET_N"); s != "" {
		if _, err := fmtSscan(s, &n); err != nil {
			b.Fatal(err)
		}
	}
	tmpl := fleetTemplate(b, 400000, nil)
	_, paths := writeFleet(b, n, tmpl, nil)
	b.SetBytes(int64(len(tmpl)) * int64(n))
	b.ResetTimer()
	for b.Loop() {
		r := Fleet(paths, 0)
		if r.Documents != n || len(r.Outliers) != 0 {
			b.Fatalf("documents %d, outliers %d", r.Documents, len(r.Outliers))
		}
	}
}
