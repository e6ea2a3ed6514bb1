package probe

import (
	"context"
	"testing"

	"aorta-probe/schema"
)

// BenchmarkCollectHost is a whole collection of this machine, tools
// included: go test ./probe -run XXX -bench Collect -benchmem
func BenchmarkCollectHost(b *testing.B) {
	for b.Loop() {
		Collect(context.Background(), Options{})
	}
}

// BenchmarkCollectEmptyRoot is the fixed cost of the machinery: nothing to
// read, nothing to run.
func BenchmarkCollectEmptyRoot(b *testing.B) {
	dir := b.TempDir()
	opt := Options{Root: dir, Env: func(string) (string, bool) { return "", false }}
	for b.Loop() {
		Collect(context.Background(), opt)
	}
}

func BenchmarkEncode(b *testing.B) {
	snap := Collect(context.Background(), Options{})
	b.ReportAllocs()
	for b.Loop() {
		schema.Encode(snap)
	}
}

// BenchmarkContainerDetected is the isolation evidence alone, on this
// machine: go test ./probe -run XXX -bench ContainerDetected -benchmem
func BenchmarkContainerDetected(b *testing.B) {
	s := &state{collector: &collector{root: fsroot("/"), opt: withDefaults(Options{})}}
	b.ReportAllocs()
	for b.Loop() {
		collectContainerDetected(s)
	}
}
