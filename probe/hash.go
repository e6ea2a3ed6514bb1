package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
)

// hashPool hashes file contents for every block of one collection
// (architecture.md §4): at most GOMAXPROCS files are read at once, each
// through a fixed 1 MiB buffer, so memory stays flat whatever the sizes;
// and each file (by device, inode, size and mtime) is hashed once per run
// even when several blocks ask for it.
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

func newHashPool() *hashPool {
	return &hashPool{
		sem:  make(chan struct{}, runtime.GOMAXPROCS(0)),
		bufs: sync.Pool{New: func() any { b := make([]byte, hashBufSize); return &b }},
		done: map[fileKey]*hashResult{},
	}
}

// sha256OfPath is the spec's sha256-of-path (core.md §3.2): every symlink
// resolved (a dangling or looping link fails), the target must be a regular
// file, its whole content hashed. It returns "sha256:" + 64 hex digits.
func (c *collector) sha256OfPath(p string) (string, error) {
	real, err := filepath.EvalSymlinks(c.root.path(p))
	if err != nil {
		return "", c.root.logical(err, p)
	}
	return c.hashes.sum(c.ctx, real, p)
}

// sum hashes the regular file at host path real; logical names it in errors.
func (h *hashPool) sum(ctx context.Context, real, logical string) (string, error) {
	fi, err := os.Stat(real)
	if err != nil {
		return "", &fs.PathError{Op: "stat", Path: logical, Err: unwrapErrno(err)}
	}
	if !fi.Mode().IsRegular() {
		return "", &fs.PathError{Op: "open", Path: logical, Err: syscall.EINVAL}
	}
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
	r.once.Do(func() { r.sum, r.err = h.hashFile(ctx, real, logical) })
	return r.sum, r.err
}

func (h *hashPool) hashFile(ctx context.Context, real, logical string) (string, error) {
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("hash %s: %w", logical, ctx.Err())
	}
	defer func() { <-h.sem }()
	// O_NONBLOCK: a file replaced by a FIFO since the stat must not hang us.
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: logical, Err: unwrapErrno(err)}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", &fs.PathError{Op: "open", Path: logical, Err: syscall.EINVAL}
	}
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
			return "", &fs.PathError{Op: "read", Path: logical, Err: unwrapErrno(err)}
		}
	}
	return "sha256:" + hex.EncodeToString(d.Sum(nil)), nil
}

func unwrapErrno(err error) error {
	if en, ok := errnoOf(err); ok {
		return en
	}
	return err
}

func errnoOf(err error) (syscall.Errno, bool) {
	var pe *fs.PathError
	if e, ok := err.(*fs.PathError); ok {
		pe = e
	}
	if pe != nil {
		if en, ok := pe.Err.(syscall.Errno); ok {
			return en, true
		}
	}
	if en, ok := err.(syscall.Errno); ok {
		return en, true
	}
	return 0, false
}
