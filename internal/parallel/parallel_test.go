package parallel

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestRun: every fn runs, at once (each waits for all to have started),
// and Run returns only when all have.
func TestRun(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	var done atomic.Int32
	fns := make([]func(), n)
	for i := range fns {
		fns[i] = func() {
			started.Done()
			started.Wait() // a Run that called them one by one would hang here
			done.Add(1)
		}
	}
	Run(fns...)
	if done.Load() != n {
		t.Errorf("Run returned after %d of %d", done.Load(), n)
	}
	Run() // nothing to run: returns
}

// TestRunPanic: a panic in one fn is raised in the caller, once the others
// have returned.
func TestRunPanic(t *testing.T) {
	var other atomic.Bool
	defer func() {
		if v := recover(); v != "boom" || !other.Load() {
			t.Errorf("recovered %v (the other fn returned: %v), want boom after it", v, other.Load())
		}
	}()
	Run(func() { other.Store(true) }, func() { panic("boom") })
	t.Error("Run returned after a panic")
}

// TestSpread: each of 0…n-1 is called exactly once, whatever the workers;
// with one worker (or one item) in order on the caller's goroutine.
func TestSpread(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{
		{0, 4}, {1, 4}, {5, 1}, {5, 0}, {5, -1}, {5, 2}, {5, 8}, {64, 8}, {7, 3},
	} {
		var mu sync.Mutex
		var got []int
		Spread(tc.n, tc.workers, func(i int) {
			mu.Lock()
			got = append(got, i)
			mu.Unlock()
		})
		want := make([]int, tc.n)
		for i := range want {
			want[i] = i
		}
		sequential := tc.workers <= 1 || tc.n <= 1
		if !sequential {
			slices.Sort(got)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Spread(%d, %d) called %v, want each of 0…%d once%s", tc.n, tc.workers, got, tc.n-1, map[bool]string{true: ", in order"}[sequential])
		}
	}
}

// TestSpreadPanic: a panic in f reaches the caller, with workers or
// without.
func TestSpreadPanic(t *testing.T) {
	for _, workers := range []int{1, 4} {
		func() {
			defer func() {
				if v := recover(); v != "item 3" {
					t.Errorf("workers %d: recovered %v, want item 3", workers, v)
				}
			}()
			Spread(8, workers, func(i int) {
				if i == 3 {
					panic("item 3")
				}
			})
			t.Errorf("workers %d: Spread returned after a panic", workers)
		}()
	}
}
