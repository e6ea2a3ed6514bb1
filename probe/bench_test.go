package probe

import (
	"context"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
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
		pyjson.Encode(snap)
	}
}

// BenchmarkContainerDetected is the isolation evidence alone, on this
// machine: go test ./probe -run XXX -bench ContainerDetected -benchmem
func BenchmarkContainerDetected(b *testing.B) {
	s := &state{collector: newCollector(context.Background(), Options{Cwd: "/"})}
	b.ReportAllocs()
	for b.Loop() {
		collectContainerDetected(s)
	}
}

// BenchmarkCollectScenario is a whole collection of the richest fake root
// (mi350-host), every read going through rootFS under a root: go test
// ./probe -run XXX -bench CollectScenario -benchmem
func BenchmarkCollectScenario(b *testing.B) {
	root := b.TempDir()
	a, err := fakeroot.Materialize("../testdata/roots/mi350-host.txtar", root)
	if err != nil {
		b.Fatal(err)
	}
	t := &testing.T{}
	opt := scenarioOptions(t, root, a)
	b.ReportAllocs()
	for b.Loop() {
		Collect(context.Background(), opt)
	}
}
