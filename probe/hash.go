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
	"strings"
	"sync"
	"syscall"
)

// hashPool hashes file contents for every block of one collection
// (architecture.md §4): at most GOMAXPROCS files are read at once, each
// through a fixed 1 MiB buffer (one per reader, recycled), so memory stays
// flat whatever the sizes; and each file (by device, inode, size and mtime)
// is hashed once per run even when several blocks ask for it.
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

// sha256OfPath is the spec's sha256-of-path (core.md §3.2): every symlink
// resolved inside the probed root (a dangling or looping link fails), the
// target must be a regular file, its whole content hashed. It returns
// "sha256:" + 64 hex digits.
func (c *collector) sha256OfPath(p string) (string, error) {
	host, err := c.root.follow(c.abs(p))
	if err != nil {
		return "", err
	}
	return c.hashes.sum(c.ctx, host, p)
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
	parallel(fns...)
}

// parallel runs fns concurrently and waits for all. A panic in one of them
// is raised again in the caller's goroutine, where the probe's recover
// turns it into a reason instead of crashing the process.
func parallel(fns ...func()) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	for _, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					mu.Lock()
					if panicked == nil {
						panicked = v
					}
					mu.Unlock()
				}
			}()
			fn()
		}()
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// abs makes a relative path absolute against the probe's working directory
// (Options.Cwd), as the kernel would for the Python process.
func (c *collector) abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	cwd := c.opt.Cwd
	if cwd == "" {
		cwd = "/"
	}
	return strings.TrimSuffix(cwd, "/") + "/" + p
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
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
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

// maxSymlinks is the kernel's limit on links followed in one resolution
// (MAXSYMLINKS); one more is ELOOP.
const maxSymlinks = 40

// follow resolves every symlink of the absolute machine path p and returns
// the host path of the final target, which is then opened or stat-ed
// without further resolution. On the live machine (root "/") the kernel does
// this on open/stat, so p is returned as is. Under another root, links are
// resolved here, component by component, with absolute targets taken
// relative to the root (as chroot would), so a mounted image's
// /opt/rocm/lib/libfoo.so -> /opt/rocm-7.2/lib/... never escapes to the
// host. Loops fail with ELOOP, dangling links with ENOENT; errors carry p.
func (r fsroot) follow(p string) (string, error) {
	if r == "/" || r == "" {
		return p, nil
	}
	real, err := r.resolve(p)
	if err != nil {
		return "", err
	}
	return r.path(real), nil
}

// resolve is realpath(3) inside the root: the machine path of p with every
// symlink, "." and ".." resolved. The final component must exist.
func (r fsroot) resolve(p string) (string, error) {
	fail := func(op string, err error) (string, error) {
		return "", &fs.PathError{Op: op, Path: p, Err: unwrapErrno(err)}
	}
	resolved := ""
	rest := p
	links := 0
	for rest != "" {
		var c string
		c, rest, _ = strings.Cut(rest, "/")
		switch c {
		case "", ".":
			continue
		case "..":
			if i := strings.LastIndexByte(resolved, '/'); i >= 0 {
				resolved = resolved[:i]
			}
			continue
		}
		next := resolved + "/" + c
		fi, err := os.Lstat(r.path(next))
		if err != nil {
			return fail("stat", err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if rest != "" && !fi.IsDir() {
				return fail("stat", syscall.ENOTDIR)
			}
			resolved = next
			continue
		}
		if links++; links > maxSymlinks {
			return fail("stat", syscall.ELOOP)
		}
		t, err := os.Readlink(r.path(next))
		if err != nil {
			return fail("readlink", err)
		}
		if strings.HasPrefix(t, "/") {
			resolved = ""
		}
		if rest == "" {
			rest = t
		} else {
			rest = t + "/" + rest
		}
	}
	if resolved == "" {
		resolved = "/"
	}
	return resolved, nil
}

// statFollow is os.Stat of the machine path p (relative to the probe's cwd
// when not absolute), every link resolved inside the root.
func (c *collector) statFollow(p string) (fs.FileInfo, error) {
	host, err := c.root.follow(c.abs(p))
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(host)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: unwrapErrno(err)}
	}
	return fi, nil
}

// isDirFollow and isFileFollow are pathlib's is_dir()/is_file(): links
// followed, any error is false.
func (c *collector) isDirFollow(p string) bool {
	fi, err := c.statFollow(p)
	return err == nil && fi.IsDir()
}

func (c *collector) isFileFollow(p string) bool {
	fi, err := c.statFollow(p)
	return err == nil && fi.Mode().IsRegular()
}

// readDirFollow lists the directory p, links resolved inside the root.
// Entries come back in directory order, unsorted (os.scandir order):
// callers sort.
func (c *collector) readDirFollow(p string) ([]string, error) {
	host, err := c.root.follow(c.abs(p))
	if err != nil {
		return nil, err
	}
	// O_DIRECTORY|O_NONBLOCK: a FIFO or device where a directory should be
	// fails at once instead of blocking the open.
	f, err := os.OpenFile(host, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: unwrapErrno(err)}
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "scandir", Path: p, Err: unwrapErrno(err)}
	}
	return names, nil
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
