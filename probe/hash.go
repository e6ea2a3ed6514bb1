package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"syscall"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/parallel"
)

// hashPool hashes file contents for every block of one collection
// (docs/rocm-libraries.md#hashing-at-disk-speed): at most GOMAXPROCS files
// are read at once, each through a fixed 1 MiB buffer (one per reader,
// recycled), so memory stays flat whatever the sizes; and each file (by
// device, inode, size and mtime) is hashed once per run even when several
// blocks ask for it.
//
// Callers that have many files (the catalog menus) submit them from a few
// goroutines at once (hashAll), so that every worker slot stays busy.
type hashPool struct {
	sem  chan struct{}
	bufs sync.Pool
	mu   sync.Mutex
	done map[fileKey]*hashResult
}

type fileKey struct {
	dev, ino uint64
	size     int64
	mtime    int64
}

type hashResult struct {
	once sync.Once
	sum  string
	err  error
}

const hashBufSize = 1 << 20

// newHashPool reads at most min(GOMAXPROCS, workers) files at once
// (Options.Workers; 0 is GOMAXPROCS).
func newHashPool(workers int) *hashPool {
	n := runtime.GOMAXPROCS(0)
	if workers > 0 {
		n = min(n, workers)
	}
	return &hashPool{
		sem:  make(chan struct{}, n),
		bufs: sync.Pool{New: func() any { b := make([]byte, hashBufSize); return &b }},
		done: map[fileKey]*hashResult{},
	}
}

// workers is how many files the pool reads at once.
func (h *hashPool) workers() int { return cap(h.sem) }

// sha256OfPath is the sha256:<hex> form
// (docs/rocm-libraries.md#hash-and-fingerprint-forms): every symlink resolved
// inside the probed root (a dangling or looping link fails), the target must
// be a regular file, its whole content hashed. It returns "sha256:" + 64 hex
// digits.
func (c *collector) sha256OfPath(p string) (string, error) {
	return c.hashes.sum(c.ctx, c.root, p)
}

// sha256OfPath is the collector's sha256OfPath for one probe: a hash cut by
// the deadline (or SIGTERM) marks the probe interrupted, so its block is
// reported as not captured, never as a file "missing or unreadable".
func (s *state) sha256OfPath(p string) (string, error) {
	sum, err := s.collector.sha256OfPath(p)
	if err != nil && isCut(err) {
		s.interrupted.Store(true)
	}
	return sum, err
}

// isCut reports whether a hash failed because the collection ended.
func isCut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// hashAll is the collector's hashAll for one probe, marking it interrupted
// when the deadline cut any of the hashes.
func (s *state) hashAll(ps []string, put func(i int, sum string, err error)) {
	s.collector.hashAll(ps, func(i int, sum string, err error) {
		if err != nil && isCut(err) {
			s.interrupted.Store(true)
		}
		put(i, sum, err)
	})
}

// hashAll hashes the files ps through the pool, several at once, and calls
// put(i, sum, err) for each (from any goroutine; put must be safe for
// concurrent use on distinct i). It returns when all are done.
func (c *collector) hashAll(ps []string, put func(i int, sum string, err error)) {
	var next int
	var mu sync.Mutex
	worker := func() {
		for {
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			if i >= len(ps) {
				return
			}
			sum, err := c.sha256OfPath(ps[i])
			put(i, sum, err)
		}
	}
	fns := make([]func(), min(c.hashes.workers(), len(ps)))
	for w := range fns {
		fns[w] = worker
	}
	parallel.Run(fns...)
}

// sum hashes the regular file p of root. The file is opened (non-blocking,
// every link resolved inside the root) and identified by its descriptor,
// so what is hashed is what was checked.
func (h *hashPool) sum(ctx context.Context, root *machine.FS, p string) (string, error) {
	f, fi, err := root.OpenRegularFor(p, true)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "read" {
			return "", &fs.PathError{Op: "open", Path: p, Err: syscall.EINVAL}
		}
		return "", machine.PathErr("stat", p, err)
	}
	defer f.Close()
	st, _ := fi.Sys().(*syscall.Stat_t)
	key := fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st != nil {
		key.dev, key.ino = uint64(st.Dev), st.Ino
	}
	h.mu.Lock()
	r, ok := h.done[key]
	if !ok {
		r = &hashResult{}
		h.done[key] = r
	}
	h.mu.Unlock()
	r.once.Do(func() { r.sum, r.err = h.hashFile(ctx, f, p) })
	if r.err == nil {
		root.Hashed(p, r.sum)
	}
	return r.sum, r.err
}

func (h *hashPool) hashFile(ctx context.Context, f *os.File, logical string) (string, error) {
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("hash %s: %w", logical, ctx.Err())
	}
	defer func() { <-h.sem }()
	bp := h.bufs.Get().(*[]byte)
	defer h.bufs.Put(bp)
	d := sha256.New()
	for {
		if ctx.Err() != nil {
			return "", fmt.Errorf("hash %s: %w", logical, ctx.Err())
		}
		n, err := f.Read(*bp)
		d.Write((*bp)[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", &fs.PathError{Op: "read", Path: logical, Err: machine.UnwrapErrno(err)}
		}
	}
	return "sha256:" + hex.EncodeToString(d.Sum(nil)), nil
}

// preload puts a replay's hashes into the pool: a file the archive kept
// as size and SHA-256 hashes to the captured sum, without its bytes.
func (h *hashPool) preload(r *archive.Replay) {
	r.Sums(func(host, sum string) {
		fi, err := os.Lstat(host)
		if err != nil {
			return
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		key := fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		if st != nil {
			key.dev, key.ino = uint64(st.Dev), st.Ino
		}
		res := &hashResult{sum: sum}
		res.once.Do(func() {})
		h.done[key] = res
	})
}
