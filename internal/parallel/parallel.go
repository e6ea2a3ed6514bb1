// Package parallel runs a collector's independent reads at once: Run for a
// few different jobs, Spread for one job over many items. A panic in a job
// is raised again in the caller's goroutine, where the probe's recover
// turns it into the block's reason instead of crashing the process.
package parallel

import "sync"

// Run calls every fn on its own goroutine and returns when all have
// returned; the first panic among them is raised again here.
func Run(fns ...func()) {
	var wg sync.WaitGroup
	var once sync.Once
	var panicked any
	for _, fn := range fns {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					once.Do(func() { panicked = v })
				}
			}()
			fn()
		})
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// Spread calls f(0) … f(n-1) on up to workers goroutines, worker w taking
// w, w+workers, …, and returns when all have; one after another, in order,
// when workers <= 1 or n <= 1 (low resource limits: Options.Workers 1). A
// panic in f is raised again here.
func Spread(n, workers int, f func(i int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	workers = min(workers, n)
	fns := make([]func(), workers)
	for w := range workers {
		fns[w] = func() {
			for i := w; i < n; i += workers {
				f(i)
			}
		}
	}
	Run(fns...)
}
