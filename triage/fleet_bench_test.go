package triage

import (
	"os"
	"path/filepath"
	"testing"

	"aorta-probe/internal/fleetgen"
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
	base, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "rocm-classic-7.2.json"))
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := fleetgen.Template(base, 400000, nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := fleetgen.Write(dir, n, tmpl, nil); err != nil {
		b.Fatal(err)
	}
	paths, err := ExpandFleet([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(tmpl)) * int64(n))
	b.ResetTimer()
	for b.Loop() {
		r := Fleet(paths, 0)
		if r.Documents != n || len(r.Outliers) != 0 {
			b.Fatalf("documents %d, outliers %d", r.Documents, len(r.Outliers))
		}
	}
}
