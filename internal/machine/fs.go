package machine

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"aorta-probe/internal/pyfmt"
)

// FS is the filesystem the probe describes, and the only way the probe
// reads it: "/" in production, a mounted host or image with --root, a fake
// machine root in tests. Every method takes a path as the probed machine
// sees it (relative paths are taken against the machine working directory,
// Options.Cwd) and errors carry that logical path, never the host path of
// the root.
//
// The one rule (docs/rocm-roots.md, "Reading under --root"): under a root
// other than "/" every component of every path resolves inside the root,
// as chroot(2) would resolve it: absolute link targets are re-rooted, ".."
// stops at the root, more than 40 links is ELOOP, as in the kernel. Where
// the kernel has openat2(2) this is RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS
// (race-free); where it does not (ENOSYS), or a seccomp filter refuses it
// (EPERM), a portable component walk gives the same answers. Under "/" the
// kernel resolves as it would for the workload, with plain syscalls.
//
// The method set is deliberately small, so that a recording filesystem can
// later sit behind the same methods: open (the one primitive that reads
// bytes), stat, lstat, readlink, readDir, readDirNames and realpath; the
// rest (readHead, readFile, readText, exists, isDir, isRegular) are built on
// them.
type FS struct {
	root string // host path of the root; "/" is the live machine
	cwd  string // machine working directory; "" when unknown (deleted)
	// portable: never try openat2 (Options.PortableResolve; tests cover
	// the walk with it on a kernel that has openat2).
	portable bool
	// noOpenat2 is set once openat2 failed with ENOSYS or EPERM.
	noOpenat2 atomic.Bool
	// openat2Call is the openat2(2) system call (rawOpenat2); a test puts
	// a failing one there, to see the fallbacks (ENOSYS, EAGAIN).
	openat2Call func(dir int, path *byte, how *openHow) (int, syscall.Errno)

	// watch is told what the probe asked (a capture's Recorder); nil
	// normally.
	watch Watcher
	// errs are the errors a capture recorded (a replay's, SetFaults):
	// opening one of these machine paths fails with its errno, as it did
	// when captured.
	errs map[string]syscall.Errno

	dirOnce sync.Once
	dirFD   int   // O_PATH descriptor of root, for openat2
	dirErr  error // why root could not be opened
}

// Watcher is told of every read of an FS, with the answer: a capture's
// Recorder, which records what the probe met (docs/capture.md). Paths are
// as the probe asked them, on the probed machine.
type Watcher interface {
	// Opened: an open of p with flags; hashing when the hash pool opened
	// it to read it whole.
	Opened(p string, flags int, f *os.File, err error, hashing bool)
	// Asked: a stat, lstat or readlink (op) of p, the last link followed
	// or not.
	Asked(op, p string, follow bool, err error)
	// Listed: a directory listing of p.
	Listed(p string, names []string)
	// Resolved: the absolute path p was resolved (realpath).
	Resolved(p string)
	// Hashed: the hash pool read p whole and found sum.
	Hashed(p, sum string)
}

// Watch makes w see every read from now on; call it before the FS is
// shared.
func (r *FS) Watch(w Watcher) { r.watch = w }

// Hashed tells the watcher, if any, that p was read whole and hashed to
// sum (the hash pool reads through OpenRegularFor).
func (r *FS) Hashed(p, sum string) {
	if r.watch != nil {
		r.watch.Hashed(p, sum)
	}
}

// SetFaults makes the FS answer the errors of faults, keyed "open /path",
// "stat /path", "lstat /path" or "readlink /path", instead of reading (a
// replay's recorded errors, a scenario's [errno] sections); call it
// before the FS is shared.
func (r *FS) SetFaults(faults map[string]syscall.Errno) { r.errs = faults }

// NewFS returns the filesystem at host path root ("" is "/"), with
// relative paths taken against the machine path cwd.
func NewFS(root, cwd string, portable bool) *FS {
	if root == "" {
		root = "/"
	}
	if root != "/" {
		root = strings.TrimRight(root, "/")
		if root == "" {
			root = "/"
		}
	}
	return &FS{root: root, cwd: cwd, portable: portable, dirFD: -1, openat2Call: rawOpenat2}
}

// HostRoot is the host path of the root: "/" for the live machine.
func (r *FS) HostRoot() string { return r.root }

// Twin is a new FS on r's root, working directory and resolver, watched
// by nothing and with no faults: what a watcher (a capture's recorder)
// reads through without seeing its own reads.
func (r *FS) Twin() *FS { return NewFS(r.root, r.cwd, r.portable) }

// Live reports whether this is the machine the probe runs on.
func (r *FS) Live() bool { return r.root == "/" }

// Abs makes p absolute against the machine working directory. ok is false
// for a relative path when the working directory is unknown.
func (r *FS) Abs(p string) (string, bool) {
	if strings.HasPrefix(p, "/") {
		return p, true
	}
	if r.cwd == "" {
		return p, false
	}
	return strings.TrimSuffix(r.cwd, "/") + "/" + p, true
}

// Host is the Host path of the already resolved machine path p.
func (r *FS) Host(p string) string {
	if r.Live() {
		return p
	}
	if p == "/" {
		return r.root
	}
	return r.root + p
}

// PathErr is err as a *fs.PathError naming the machine path p: an errno
// is taken out of any PathError around it, so the host path never shows.
func PathErr(op, p string, err error) error {
	var pe *fs.PathError
	for errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// Logical is err with the machine path p in place of the path it names,
// its operation kept.
func Logical(err error, p string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	return err
}

// Linux openat2(2) (uapi linux/openat2.h); the syscall number is the same
// on every architecture.
const (
	sysOpenat2          = 437
	resolveNoMagiclinks = 0x02
	resolveInRoot       = 0x10
	// openat2TriesEAGAIN is how many times a path is tried with openat2
	// while it answers EAGAIN before the walk resolves it. With
	// RESOLVE_IN_ROOT the kernel answers EAGAIN when any rename or mount
	// anywhere on the host (rename_lock, mount_lock: fs/namei.c
	// handle_dots) raced a ".." of the lookup, as in sysfs's relative
	// links: about 3% of tries through two ".." while another thread
	// mounts and unmounts (TestOpenat2UnderMountStorm). A burst of mounts
	// (a container starting) can outlast a few tries; a value read as
	// missing then would be silently wrong.
	openat2TriesEAGAIN = 8
)

// rawOpenat2 is openat2(dir, path, how).
func rawOpenat2(dir int, path *byte, how *openHow) (int, syscall.Errno) {
	r1, _, e := syscall.Syscall6(sysOpenat2, uintptr(dir), uintptr(unsafe.Pointer(path)),
		uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
	return int(r1), e
}

// OPath is O_PATH (uapi asm-generic/fcntl.h; the syscall package lacks
// it): a descriptor that names a file without opening it for I/O.
const OPath = 0o10000000

type openHow struct{ flags, mode, resolve uint64 }

// rootDir opens the root once per filesystem, for openat2; the descriptor
// is closed when the FS is no longer reachable (a probe abandoned at
// the deadline may still use it after Collect returned).
func (r *FS) rootDir() (int, error) {
	r.dirOnce.Do(func() {
		fd, err := syscall.Open(r.root, OPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			r.dirErr = err
			return
		}
		r.dirFD = fd
		runtime.AddCleanup(r, func(fd int) { syscall.Close(fd) }, fd)
	})
	return r.dirFD, r.dirErr
}

// openat2 opens machine path p inside the root. ok is false when the
// kernel has no usable openat2, or kept answering EAGAIN for p
// (openat2TriesEAGAIN): the caller walks instead.
func (r *FS) openat2(p string, flags int) (fd int, ok bool, err error) {
	if r.portable || r.noOpenat2.Load() {
		return -1, false, nil
	}
	dir, err := r.rootDir()
	if err != nil {
		return -1, true, err
	}
	b, err := syscall.BytePtrFromString(p)
	if err != nil {
		return -1, true, err
	}
	how := openHow{flags: uint64(flags | syscall.O_CLOEXEC), resolve: resolveInRoot | resolveNoMagiclinks}
	for tries := 1; ; tries++ {
		fd, e := r.openat2Call(dir, b, &how)
		switch {
		case e == 0:
			return fd, true, nil
		case e == syscall.ENOSYS || e == syscall.EPERM:
			r.noOpenat2.Store(true)
			return -1, false, nil
		case e == syscall.EINTR || e == syscall.EAGAIN && tries < openat2TriesEAGAIN:
			continue // EAGAIN: a rename or mount raced a "..": again
		case e == syscall.EAGAIN:
			return -1, false, nil // still racing: the walk has no such limit
		default:
			return -1, true, e
		}
	}
}

// Open opens the machine path p with flags (O_CLOEXEC added), every
// component resolved inside the root. With O_NOFOLLOW the last component
// is not followed (with O_PATH: the link itself, for lstat and readlink).
func (r *FS) Open(p string, flags int) (*os.File, error) { return r.OpenFor(p, flags, false) }

// OpenFor is open; hashing says the hash pool opens it (a capture then
// keeps its size and sum, never its bytes).
func (r *FS) OpenFor(p string, flags int, hashing bool) (*os.File, error) {
	f, err := r.OpenUnwatched(p, flags)
	if r.watch != nil {
		r.watch.Opened(p, flags, f, err, hashing)
	}
	return f, err
}

func (r *FS) OpenUnwatched(p string, flags int) (*os.File, error) {
	if r.Live() {
		if err := r.refused(p, flags); err != nil {
			return nil, err
		}
		ap, _ := r.Abs(p)
		f, err := os.OpenFile(ap, flags, 0)
		if err != nil {
			return nil, Logical(err, p)
		}
		return f, nil
	}
	fd, err := r.openFD(p, flags)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), p), nil
}

// refused is the error open of p answers without asking the kernel: a
// fault the root holds for it (a replay's recorded error), or ENOENT for
// a relative p when the working directory is unknown.
func (r *FS) refused(p string, flags int) error {
	ap, ok := r.Abs(p)
	if en, bad := r.errs["open "+ap]; bad && ok && flags&OPath == 0 {
		return PathErr("open", p, en)
	}
	if !ok {
		return PathErr("open", p, syscall.ENOENT)
	}
	return nil
}

// openFD is OpenUnwatched's file descriptor, for the reads that need no
// *os.File (readHeadFD).
func (r *FS) openFD(p string, flags int) (int, error) {
	if err := r.refused(p, flags); err != nil {
		return -1, err
	}
	ap, _ := r.Abs(p)
	if r.Live() {
		for {
			fd, err := syscall.Open(ap, flags|syscall.O_CLOEXEC, 0)
			switch {
			case err == syscall.EINTR:
				continue
			case err != nil:
				return -1, PathErr("open", p, err)
			}
			return fd, nil
		}
	}
	fd, ok, err := r.openat2(ap, flags)
	if !ok {
		fd, err = r.openWalk(ap, flags)
	}
	if err != nil {
		return -1, PathErr("open", p, err)
	}
	return fd, nil
}

// openWalk is open without openat2: the path is resolved by walk, then the
// host path is opened without following a link at its end (a link there
// now means the tree changed under us: ELOOP, never the host).
func (r *FS) openWalk(p string, flags int) (int, error) {
	var real string
	var err error
	if flags&syscall.O_NOFOLLOW != 0 {
		real, err = r.resolveParent(p)
	} else {
		real, err = r.walk(p, true)
	}
	if err != nil {
		return -1, err
	}
	for {
		fd, err := syscall.Open(r.Host(real), flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		return fd, err
	}
}

// resolveParent resolves every component of p but the last, which is
// appended as is ("", "." and ".." are resolved too: they name no link; a
// trailing slash makes the kernel follow the last link too).
func (r *FS) resolveParent(p string) (string, error) {
	if strings.HasSuffix(p, "/") {
		return r.walk(p, true)
	}
	dir, base := p, ""
	if i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/'); i >= 0 {
		dir, base = p[:i+1], strings.TrimRight(p[i+1:], "/")
	}
	if base == "" || base == "." || base == ".." {
		return r.walk(p, true)
	}
	d, err := r.walk(dir, true)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(d, "/") + "/" + base, nil
}

// walk is the portable resolver: the machine path of the absolute p with
// every symlink, "." and ".." resolved inside the root, component by
// component (lstat, readlink). Strict, the whole path must exist (dangling
// links ENOENT, loops ELOOP, a non-directory followed by more components
// ENOTDIR). Lenient (Python's Path.resolve(strict=False)), from the first
// component that does not resolve the rest is appended as written, "."
// and ".." applied lexically.
func (r *FS) walk(p string, strict bool) (string, error) {
	resolved, unresolved, err := ResolveIn(p, true, func(next string) (Component, error) {
		fi, err := os.Lstat(r.Host(next))
		switch {
		case err != nil:
			return Component{}, err
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(r.Host(next))
			return Component{Link: true, Target: t}, err
		}
		return Component{Dir: fi.IsDir()}, nil
	})
	if err != nil {
		if strict {
			return "", err
		}
		return lexical(resolved + "/" + unresolved), nil
	}
	return resolved, nil
}

// Component is what one step of a path walk found at a path: a symbolic
// link and its target, or whether it is a directory.
type Component struct {
	Link   bool
	Target string
	Dir    bool
}

// ResolveIn resolves the absolute path p inside a root, one component at
// a time, as the kernel does under RESOLVE_IN_ROOT: look says what each
// path is; an absolute link target starts again at the root, ".." stops
// at it, more than maxSymlinks links is ELOOP, a non-directory followed
// by more components (even a trailing slash) is ENOTDIR. The last
// component's link is followed only with followLast. On an error it
// returns the path resolved so far and the part not resolved, from the
// component that failed on.
func ResolveIn(p string, followLast bool, look func(string) (Component, error)) (resolved, unresolved string, err error) {
	rest, links := p, 0
	for rest != "" {
		// more: a slash follows c (even a trailing one: "file/" is
		// ENOTDIR, as in the kernel).
		c, tail, more := strings.Cut(rest, "/")
		rest = tail
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
		it, err := look(next)
		switch {
		case err != nil:
		case !it.Link && !it.Dir && more:
			err = syscall.ENOTDIR
		case it.Link && (more || followLast):
			if links++; links > maxSymlinks {
				err = syscall.ELOOP
			}
		}
		if err != nil {
			return resolved, c + "/" + rest, err
		}
		if !it.Link || !(more || followLast) {
			resolved = next
			continue
		}
		if strings.HasPrefix(it.Target, "/") {
			resolved = ""
		}
		if more {
			rest = it.Target + "/" + rest
		} else {
			rest = it.Target
		}
	}
	if resolved == "" {
		resolved = "/"
	}
	return resolved, "", nil
}

// lexical cleans the absolute path p: "." and empty components dropped,
// ".." removing the previous component (never above "/").
func lexical(p string) string {
	var out []string
	for c := range strings.SplitSeq(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, c)
		}
	}
	return "/" + strings.Join(out, "/")
}

// maxSymlinks is the kernel's limit on links followed in one resolution
// (MAXSYMLINKS); one more is ELOOP.
const maxSymlinks = 40

// Stat is os.Stat of p inside the root: links followed.
func (r *FS) Stat(p string) (fs.FileInfo, error) { return r.statAs("stat", p, true) }

// Lstat is os.Lstat of p inside the root: a link at the end is not
// followed.
func (r *FS) Lstat(p string) (fs.FileInfo, error) { return r.statAs("lstat", p, false) }

// statAs is Stat (follow) or Lstat: op ("stat", "lstat") names it in
// errors, in the faults and to the watcher.
func (r *FS) statAs(op, p string, follow bool) (fs.FileInfo, error) {
	v, err := r.stat1(op, p, follow)
	if r.watch != nil {
		r.watch.Asked(op, p, follow, err)
	}
	return v, err
}

func (r *FS) stat1(op, p string, follow bool) (fs.FileInfo, error) {
	if ap, ok := r.Abs(p); ok {
		if en, bad := r.errs[op+" "+ap]; bad {
			return nil, PathErr(op, p, en)
		}
	}
	if r.Live() {
		ap, ok := r.Abs(p)
		if !ok {
			return nil, PathErr(op, p, syscall.ENOENT)
		}
		stat := os.Stat
		if !follow {
			stat = os.Lstat
		}
		fi, err := stat(ap)
		if err != nil {
			return nil, Logical(err, p)
		}
		return fi, nil
	}
	if !follow {
		return r.fstatPath(p, OPath|syscall.O_NOFOLLOW)
	}
	return r.fstatPath(p, OPath)
}

func (r *FS) fstatPath(p string, flags int) (fs.FileInfo, error) {
	op := "stat"
	if flags&syscall.O_NOFOLLOW != 0 {
		op = "lstat"
	}
	f, err := r.Open(p, flags)
	if err != nil {
		return nil, PathErr(op, p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, PathErr(op, p, err)
	}
	return fi, nil
}

// Readlink is os.Readlink of p inside the root (the components before the
// last resolved inside it; the target is returned as written).
func (r *FS) Readlink(p string) (string, error) {
	v, err := r.readlink1(p)
	if r.watch != nil {
		r.watch.Asked("readlink", p, false, err)
	}
	return v, err
}

func (r *FS) readlink1(p string) (string, error) {
	if ap, ok := r.Abs(p); ok {
		if en, bad := r.errs["readlink "+ap]; bad {
			var zero string
			return zero, PathErr("readlink", p, en)
		}
	}
	if r.Live() {
		ap, ok := r.Abs(p)
		if !ok {
			return "", PathErr("readlink", p, syscall.ENOENT)
		}
		t, err := os.Readlink(ap)
		if err != nil {
			return "", Logical(err, p)
		}
		return t, nil
	}
	f, err := r.Open(p, OPath|syscall.O_NOFOLLOW)
	if err != nil {
		return "", PathErr("readlink", p, err)
	}
	defer f.Close()
	// readlinkat(fd, "") reads the link an O_PATH|O_NOFOLLOW descriptor
	// names; on anything else it fails (ENOENT, as the kernel says;
	// readlink(2) says EINVAL: normalise).
	fi, err := f.Stat()
	if err != nil {
		return "", PathErr("readlink", p, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return "", PathErr("readlink", p, syscall.EINVAL)
	}
	empty := [1]byte{}
	for n := 256; ; n *= 2 {
		buf := make([]byte, n)
		r1, _, e := syscall.Syscall6(syscall.SYS_READLINKAT, f.Fd(), uintptr(unsafe.Pointer(&empty[0])),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(n), 0, 0)
		if e != 0 {
			return "", PathErr("readlink", p, e)
		}
		if int(r1) < n {
			return string(buf[:r1]), nil
		}
	}
}

// Exists follows symlinks; any error is "does not exist", as Python's
// os.path.Exists.
func (r *FS) Exists(p string) bool {
	_, err := r.Stat(p)
	return err == nil
}

// IsDir and isRegular are pathlib's is_dir()/is_file(): links followed,
// any error is false.
func (r *FS) IsDir(p string) bool {
	fi, err := r.Stat(p)
	return err == nil && fi.IsDir()
}

func (r *FS) IsRegular(p string) bool {
	fi, err := r.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// openDir opens the directory p for listing. O_DIRECTORY|O_NONBLOCK: a
// FIFO or device where a directory should be fails at once.
func (r *FS) openDir(p string) (*os.File, error) {
	return r.Open(p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK)
}

// ReadDirNames lists the directory p in directory order, unsorted
// (os.scandir order): callers sort.
func (r *FS) ReadDirNames(p string) ([]string, error) {
	f, err := r.openDir(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, PathErr("scandir", p, err)
	}
	if r.watch != nil {
		r.watch.Listed(p, names)
	}
	return names, nil
}

// ReadDir is os.ReadDir of p inside the root: entries sorted by name,
// their type that of the entry itself (a link is a link). Under a root the
// entries' Info is an lstat inside the root, never of a host path.
func (r *FS) ReadDir(p string) ([]fs.DirEntry, error) {
	if r.Live() {
		ap, ok := r.Abs(p)
		if !ok {
			return nil, PathErr("open", p, syscall.ENOENT)
		}
		es, err := os.ReadDir(ap)
		if err != nil {
			return es, Logical(err, p)
		}
		if r.watch != nil {
			r.watch.Listed(p, direntNames(es))
		}
		return es, nil
	}
	es, _, err := r.readDirents(p, -1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if r.watch != nil {
		r.watch.Listed(p, direntNames(es))
	}
	return es, nil
}

// ReadDirMax is ReadDir for a directory that may hold any number of
// entries (a hostile or broken sysfs): it lists p a buffer of getdents(2)
// at a time and stops as soon as it has more than max entries, every entry
// counted whatever its type. more reports that the directory holds more
// than max: es then holds max+1 entries in directory order, unsorted, and
// the caller reads none of them. Otherwise es is sorted by name, as
// ReadDir. Memory and time are bounded by max, never by the directory
// (docs/hardware.md, "Bounds"); a capture records the entries listed, so
// a replay stops at the same place.
func (r *FS) ReadDirMax(p string, max int) (es []fs.DirEntry, more bool, err error) {
	es, more, err = r.readDirents(p, max)
	if err != nil {
		return nil, false, err
	}
	if !more {
		slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	if r.watch != nil {
		r.watch.Listed(p, direntNames(es))
	}
	return es, more, nil
}

// readDirents lists p with getdents(2) into a fixed buffer, in directory
// order; with max >= 0 it stops once it holds more than max entries (more
// is then true and es holds max+1).
func (r *FS) readDirents(p string, max int) (es []fs.DirEntry, more bool, err error) {
	f, err := r.openDir(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	for {
		n, err := syscall.ReadDirent(int(f.Fd()), buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false, PathErr("readdirent", p, err)
		}
		if n <= 0 {
			return es, false, nil
		}
		es = parseDirents(r, p, buf[:n], es)
		if max >= 0 && len(es) > max {
			return es[:max+1], true, nil
		}
	}
}

func direntNames(es []fs.DirEntry) []string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name()
	}
	return names
}

// parseDirents appends the entries of a linux_dirent64 buffer ("." and
// ".." skipped). An unknown d_type is taken from an lstat inside the root.
func parseDirents(r *FS, dir string, b []byte, es []fs.DirEntry) []fs.DirEntry {
	for len(b) >= 19 {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < 19 || reclen > len(b) {
			break
		}
		rec := b[:reclen]
		b = b[reclen:]
		if *(*uint64)(unsafe.Pointer(&rec[0])) == 0 { // d_ino 0: deleted
			continue
		}
		name := rec[19:]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		e := &rootDirent{fs: r, path: strings.TrimSuffix(dir, "/") + "/" + string(name), name: string(name)}
		switch rec[18] {
		case syscall.DT_REG:
			e.typ = 0
		case syscall.DT_DIR:
			e.typ = fs.ModeDir
		case syscall.DT_LNK:
			e.typ = fs.ModeSymlink
		case syscall.DT_FIFO:
			e.typ = fs.ModeNamedPipe
		case syscall.DT_SOCK:
			e.typ = fs.ModeSocket
		case syscall.DT_CHR:
			e.typ = fs.ModeDevice | fs.ModeCharDevice
		case syscall.DT_BLK:
			e.typ = fs.ModeDevice
		default:
			fi, err := r.Lstat(e.path)
			if err != nil {
				continue // vanished since the listing, as os.ReadDir
			}
			e.typ = fi.Mode().Type()
		}
		es = append(es, e)
	}
	return es
}

// rootDirent is one entry of FS.readDir under a root.
type rootDirent struct {
	fs   *FS
	path string
	name string
	typ  fs.FileMode
}

func (e *rootDirent) Name() string               { return e.name }
func (e *rootDirent) IsDir() bool                { return e.typ.IsDir() }
func (e *rootDirent) Type() fs.FileMode          { return e.typ }
func (e *rootDirent) Info() (fs.FileInfo, error) { return e.fs.Lstat(e.path) }
func (e *rootDirent) String() string             { return fs.FormatDirEntry(e) }

// ExecPath is the host path of the executable p of the root (tests run
// fake tools kept in their roots, gpu_arch.go): every component resolved
// inside the root.
func (r *FS) ExecPath(p string) (string, error) {
	ap, ok := r.Abs(p)
	if !ok {
		return "", PathErr("stat", p, syscall.ENOENT)
	}
	if r.Live() {
		return ap, nil
	}
	real, err := r.walk(ap, true)
	if err != nil {
		return "", PathErr("stat", p, err)
	}
	return r.Host(real), nil
}

// Realpath is Python's Path.resolve() (non-strict) on the probed
// filesystem: absolute (against the machine working directory), every
// existing symlink resolved inside the root, the part that does not
// resolve appended as written.
func (r *FS) Realpath(p string) string {
	ap, ok := r.Abs(p)
	if !ok {
		ap = "/" + p
	}
	if r.watch != nil {
		r.watch.Resolved(ap)
	}
	real, _ := r.walk(ap, false)
	return real
}

// ReadFile reads a whole regular file, at most max bytes (larger is an
// EFBIG error).
func (r *FS) ReadFile(p string, max int64) ([]byte, error) {
	b, err := r.ReadHead(p, max+1)
	if err == nil && int64(len(b)) > max {
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EFBIG}
	}
	return b, err
}

// OpenRegular opens p for reading and checks it is a regular file. A
// FIFO, a device node or a directory where a file was expected is an
// error, never a hang: the file is opened non-blocking (a FIFO without a
// writer opens at once) and checked with fstat before any read.
func (r *FS) OpenRegular(p string) (*os.File, fs.FileInfo, error) {
	return r.OpenRegularFor(p, false)
}

func (r *FS) OpenRegularFor(p string, hashing bool) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFor(p, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, hashing)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, PathErr("stat", p, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		errno := syscall.EINVAL
		if fi.IsDir() {
			errno = syscall.EISDIR
		}
		return nil, nil, &fs.PathError{Op: "read", Path: p, Err: errno}
	}
	return f, fi, nil
}

// ReadHead reads the first n bytes of a regular file (fewer when it is
// shorter); see openRegular. procfs and sysfs files (size 0 in stat) are
// read until EOF.
func (r *FS) ReadHead(p string, n int64) ([]byte, error) {
	if r.watch == nil {
		return r.readHeadFD(p, n)
	}
	f, fi, err := r.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readAtMost(f, n, fi.Size())
	if err != nil {
		return nil, PathErr("read", p, err)
	}
	return b, nil
}

// readHeadFD is ReadHead where no watcher needs the open file: the same
// checks and answers through bare system calls (open, fstat, read until
// EOF, close), without the *os.File whose non-blocking check, poller
// registration and second fstat cost two or three more per file (a GPU
// node's sysfs is hundreds of small files: docs/hardware.md, "Cost").
func (r *FS) readHeadFD(p string, n int64) ([]byte, error) {
	fd, err := r.openFD(p, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return nil, PathErr("stat", p, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		errno := syscall.EINVAL
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			errno = syscall.EISDIR
		}
		return nil, &fs.PathError{Op: "read", Path: p, Err: errno}
	}
	b, err := readAtMost(fdReader(fd), n, st.Size)
	if err != nil {
		return nil, PathErr("read", p, err)
	}
	return b, nil
}

// fdReader reads a file descriptor (read(2), EINTR retried; 0 bytes is
// io.EOF).
type fdReader int

func (fd fdReader) Read(b []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), b)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}

// readAtMost reads r until EOF, n bytes at most, into a buffer sized for
// the size stat reports (one allocation for a file whose size is known:
// io.ReadAll would double its way there, touching twice the memory). A
// file that grows meanwhile, or reports 0 (procfs, sysfs), is still read
// whole.
func readAtMost(r io.Reader, n, size int64) ([]byte, error) {
	b := make([]byte, 0, max(min(n, size+1), 512)) // +1: room to see EOF
	lr := io.LimitedReader{R: r, N: n}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// UnwrapErrno is the errno under err (however deeply wrapped), else err:
// the Err of a *fs.PathError the caller builds with the logical path.
func UnwrapErrno(err error) error {
	if en, ok := pyfmt.Errno(err); ok {
		return en
	}
	return err
}
