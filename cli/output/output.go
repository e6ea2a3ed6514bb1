// Package output writes what a command produces: a file atomically (or
// through, to a FIFO or a /proc link), stdout with its errors in Python's
// words, both bounded by a deadline and the signals, and --field's one
// value (docs/usage.md, "Output").
package output

//lint:file-ignore ST1005 user-facing messages are the Python probe's text, byte for byte (docs/design-notes.md, "Static checks")

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"aorta-probe/cli"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
)

// WriteOutput writes doc to OUT the way _probe_main's open(path, "w") would
// reach it, but never half-written where that can be avoided:
//   - OUT that exists and is not a regular file or directory (a FIFO, a
//     terminal, a socket: what /dev/stdout and a shell's >(…) name) is
//     written through: a reader holds it open, and a rename would replace
//     the node itself (as root, /dev/stdout) instead of feeding the reader;
//   - OUT that is a symbolic link is followed, so the file it names is
//     replaced atomically and the link stays; a link into /proc (a file
//     descriptor of this process: /dev/stdout, /dev/fd/N) is written
//     through, as Python reopens it;
//   - otherwise writeAtomic.
//
// A write through may wait for its reader (a FIFO nobody opened yet, a pipe
// nobody drains): it is abandoned at by or when ctx ends (a signal), see
// bounded.
//
// Errors read as Python's OSError text and name path, as the user gave it.
func WriteOutput(ctx context.Context, by time.Time, path string, doc []byte) error {
	target, through, err := destination(path)
	switch {
	case err != nil:
		return err
	case through:
		return bounded(ctx, by, func() error { return writeThrough(path, doc) })
	}
	return writeAtomic(target, path, doc)
}

// destination is where a write of path goes: written through (a FIFO, a
// device, a link into /proc: opened in place, nothing replaced), or the
// file target that path's links lead to, dangling ones included, which
// the atomic write replaces. A directory is an error, naming path.
func destination(path string) (target string, through bool, err error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return "", false, fmt.Errorf("[Errno 21] Is a directory: %s", pyfmt.Repr(path))
	case err == nil && !fi.Mode().IsRegular():
		return "", true, nil
	}
	target, viaProc, err := followLinks(path)
	if err != nil {
		return "", false, PyError(err, path)
	}
	return target, viaProc, nil
}

// bounded runs write, which may block, until it returns or by passes; when
// ctx ends (a signal) it gives write signalGrace more to finish (a reader
// that is taking the document gets all of it), then gives up with ctx's
// cause as the error. An abandoned write stays blocked in its goroutine;
// the process exits right after.
func bounded(ctx context.Context, by time.Time, write func() error) error {
	done := make(chan error, 1)
	go func() { done <- write() }()
	timer := time.NewTimer(time.Until(by))
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return errNoReader
	case <-ctx.Done():
	}
	grace := time.NewTimer(signalGrace)
	defer grace.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return errNoReader
	case <-grace.C:
		return context.Cause(ctx)
	}
}

// signalGrace is how long a write under way may still take after a signal
// (docs/usage.md).
const signalGrace = 500 * time.Millisecond

// errNoReader is a write through abandoned at the deadline.
var errNoReader = errors.New("timed out: no reader took the document by the deadline")

// WriteStdout writes b to stdout, bounded as a write through (a pipe whose
// reader does not read). A failed or short write is an error in Python's
// OSError words, without a path: "[Errno 28] No space left on device".
func WriteStdout(ctx context.Context, by time.Time, stdout io.Writer, b []byte) error {
	return bounded(ctx, by, func() error {
		n, err := stdout.Write(b)
		if err == nil && n < len(b) {
			err = io.ErrShortWrite
		}
		return StdoutError(err)
	})
}

// StdoutError is err, from a write to stdout, in Python's OSError words
// without a path ("[Errno 32] Broken pipe"); nil stays nil.
func StdoutError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err // "/dev/stdout" is not a path the user gave
	}
	if err != nil {
		return errors.New(pyfmt.ExcStr(err))
	}
	return nil
}

// FailedStdout is how every command reports output it could not write
// to stdout (a closed pipe, a full disk, a closed descriptor): one line,
// "CMD: failed to write to stdout: [Errno 32] Broken pipe", cmd being
// "aorta-probe" or "aorta-probe NAME". It returns status, the command's
// status for output it could not write: 1, or 2 for diff and validate,
// whose 1 is an answer (docs/usage.md, "Exit status").
func FailedStdout(stderr io.Writer, cmd string, err error, status int) int {
	fmt.Fprintf(stderr, "%s: failed to write to stdout: %v\n", cmd, StdoutError(err))
	return status
}

// Help writes a command's help text to stdout, as the capture writes its
// brief: 0, or FailedStdout's line and status.
func Help(stdout, stderr io.Writer, cmd, text string, status int) int {
	if err := WriteStdout(context.Background(), time.Now().Add(MinWriteWait), stdout, []byte(text)); err != nil {
		return FailedStdout(stderr, cmd, err, status)
	}
	return 0
}

// ClosedStdout stands for a standard output that was closed when the
// process started (aorta-probe >&-): every write fails with EBADF.
type ClosedStdout struct{}

func (ClosedStdout) Write([]byte) (int, error) { return 0, syscall.EBADF }

// StdoutClosedAtStart reports whether file descriptor 1 was closed when the
// process started. The Go runtime opens /dev/null read-write on a closed
// standard descriptor before any code of the program runs, so a closed
// stdout reads as /dev/null opened read-write whose open file description
// is shared with neither stdin nor stderr (file status flags belong to the
// description: one set on fd 1 shows on a descriptor that shares it). A
// shell's >/dev/null opens it write-only; daemon(3) shares one description
// for all three. Python's subprocess.DEVNULL for stdout alone looks the
// same and is taken for a closed stdout (docs/usage.md).
func StdoutClosedAtStart() bool {
	var st syscall.Stat_t
	if syscall.Fstat(1, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFCHR || st.Rdev != devNullRdev {
		return false
	}
	fl, err := fcntl(1, syscall.F_GETFL, 0)
	if err != nil || fl&syscall.O_ACCMODE != syscall.O_RDWR {
		return false
	}
	if _, err := fcntl(1, syscall.F_SETFL, fl^syscall.O_APPEND); err != nil {
		return false
	}
	shared := false
	for _, fd := range []int{0, 2} {
		if other, err := fcntl(fd, syscall.F_GETFL, 0); err == nil && other&syscall.O_APPEND != fl&syscall.O_APPEND {
			shared = true
		}
	}
	fcntl(1, syscall.F_SETFL, fl)
	return !shared
}

// devNullRdev is /dev/null's device number, character device 1:3.
const devNullRdev = 1<<8 | 3

func fcntl(fd, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// followLinks resolves path while its last element is a symbolic link (40
// links at most, the kernel's limit) and returns the path finally named,
// which may not exist yet (a dangling link: open(path, "w") creates its
// target). viaProc is true when a link leads into /proc, whose links are
// not paths to rename onto.
func followLinks(path string) (target string, viaProc bool, err error) {
	p := path
	for range 40 {
		if strings.HasPrefix(p, "/proc/") {
			return p, true, nil
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p, false, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(t) {
			// Not filepath.Join: ".." after a linked directory must be
			// resolved by the kernel, not lexically.
			t = filepath.Dir(p) + "/" + t
		}
		p = t
	}
	return "", false, &os.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// writeThrough is Python's open(path, "w").write(doc): no temporary file.
func writeThrough(path string, doc []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return PyError(err, path)
	}
	if _, err := f.Write(doc); err != nil {
		f.Close()
		return PyError(err, path)
	}
	if err := f.Close(); err != nil {
		return PyError(err, path)
	}
	return nil
}

// writeAtomic writes doc to path so that path is either absent, its old
// content, or the whole new document: a temporary file in the same
// directory, fsync, rename over path, fsync of the directory. Parent
// directories are not created (as _probe_main). Errors name shown (the
// path the user gave), e.g. "[Errno 2] No such file or directory: '/x/env.json'".
func writeAtomic(path, shown string, doc []byte) error {
	s, err := stageAtomic(path, shown, doc)
	if err != nil {
		return err
	}
	return s.commit()
}

// Staged is a document written beside its destination and not yet in
// place (Stage): Commit puts it there, Abort removes it, so that a run
// that fails later leaves nothing behind (docs/capture.md: the archive
// of a capture whose document cannot be written).
type Staged struct {
	tmp, path, shown string
	// through: the destination is written through at Commit (a FIFO, a
	// device, a link into /proc: WriteOutput), nothing is staged.
	through bool
	doc     []byte
}

// Stage writes doc next to the file WriteOutput(path) would replace, as
// writeAtomic's temporary file, synced; errors are WriteOutput's. A
// destination written through is only checked here (CheckWritable).
func Stage(path string, doc []byte) (*Staged, error) {
	target, through, err := destination(path)
	switch {
	case err != nil:
		return nil, err
	case through:
		return &Staged{path: path, shown: path, through: true, doc: doc}, nil
	}
	return stageAtomic(target, path, doc)
}

// Commit puts the staged document in place: the rename (and the
// directory's fsync), or the write through, bounded as WriteOutput's.
func (s *Staged) Commit(ctx context.Context, by time.Time) error {
	if s.through {
		return WriteOutput(ctx, by, s.path, s.doc)
	}
	return s.commit()
}

// Abort removes the staged file; the destination is untouched.
func (s *Staged) Abort() {
	if !s.through {
		os.Remove(s.tmp)
	}
}

// stageAtomic is the first half of writeAtomic: the temporary file
// written and synced.
func stageAtomic(path, shown string, doc []byte) (*Staged, error) {
	dir := dirOf(path)
	removeStaleTemps(dir, time.Now())
	tmp, err := createTemp(dir)
	if err != nil {
		return nil, PyError(err, shown)
	}
	fail := func(err error) (*Staged, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, PyError(err, shown)
	}
	if _, err := tmp.Write(doc); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return nil, PyError(err, shown)
	}
	return &Staged{tmp: tmp.Name(), path: path, shown: shown}, nil
}

// commit is the second half of writeAtomic: the rename over path and
// the directory's fsync.
func (s *Staged) commit() error {
	if err := os.Rename(s.tmp, s.path); err != nil {
		os.Remove(s.tmp)
		return PyError(err, s.shown)
	}
	if d, err := os.Open(dirOf(s.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// dirOf is the directory a path's file is in, "." for a bare name. Not
// filepath.Dir: it would clean "link/../" lexically.
func dirOf(path string) string {
	dir, _ := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return dir
}

// createTemp creates writeAtomic's temporary file in dir: a short name
// of its own, not derived from OUT's, since OUT's name may be as long as
// the filesystem allows (NAME_MAX, 255 bytes).
func createTemp(dir string) (*os.File, error) {
	return os.CreateTemp(dir, tempPrefix+strconv.Itoa(os.Getpid())+"-*"+tempSuffix)
}

// CheckWritable tells, before anything is collected, whether
// WriteOutput(path) can write there (docs/usage.md, "Output"): path is
// not a directory, its name is not too long for the filesystem, and its
// directory exists and takes a new file (writeAtomic's temporary file is
// created there and removed at once). A destination written through (a
// FIFO, a device, a link into /proc) is not opened: a FIFO would wait
// for its reader. Errors are the ones WriteOutput would give later,
// naming path.
func CheckWritable(path string) error {
	target, through, err := destination(path)
	if err != nil || through {
		return err
	}
	// A name longer than the filesystem takes (ENAMETOOLONG), a path
	// through a file (ENOTDIR), a directory that cannot be searched.
	if _, err := os.Lstat(target); err != nil && !errors.Is(err, syscall.ENOENT) {
		return PyError(err, path)
	}
	tmp, err := createTemp(dirOf(target))
	if err != nil {
		return PyError(err, path)
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}

// Destination is the file a write of path replaces or creates
// (WriteOutput): the links of its last element followed, dangling ones
// included (open(path, "w") creates their target), its directory's
// links resolved, absolute. It is "" for a destination written through
// (a FIFO, a device, a link into /proc), which has no such file. Two
// paths with the same Destination are one file to a writer
// (docs/capture.md: OUT and ARCHIVE).
func Destination(path string) (string, error) {
	target, through, err := destination(path)
	if err != nil || through {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(dirOf(target))
	if err != nil {
		return "", err
	}
	return filepath.Abs(filepath.Join(dir, filepath.Base(target)))
}

// The temporary file of writeAtomic is named .aorta-probe-PID-RANDOM.tmp
// (at most 36 bytes): PID is the writer's process id, RANDOM the digits
// os.CreateTemp chooses.
const (
	tempPrefix = ".aorta-probe-"
	tempSuffix = ".tmp"
)

// staleAge is how old a temporary file of a dead writer must be before
// another run removes it: far longer than any write and fsync takes, so
// that a writer this process cannot see (another PID namespace sharing the
// directory) is not robbed of its file mid-write.
const staleAge = 10 * time.Minute

// removeStaleTemps removes what a probe killed during its write (SIGKILL,
// power loss) left in dir: only regular files named as writeAtomic names
// them, owned by this user, last modified more than staleAge before now,
// whose writer PID is not a live process here. Errors are ignored: the
// cleanup is a courtesy, never a reason to fail the write.
func removeStaleTemps(dir string, now time.Time) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(1024)
		for _, name := range names {
			pid, ok := tempWriter(name)
			if !ok || pid == os.Getpid() {
				continue
			}
			p := strings.TrimSuffix(dir, "/") + "/" + name // not Join: no lexical ".."
			var st syscall.Stat_t
			if syscall.Lstat(p, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != os.Geteuid() {
				continue
			}
			if now.Sub(time.Unix(st.Mtim.Unix())) < staleAge || syscall.Kill(pid, 0) != syscall.ESRCH {
				continue
			}
			os.Remove(p)
		}
		if err != nil {
			return
		}
	}
}

// tempWriter returns the writer PID of a name writeAtomic gives its
// temporary file.
func tempWriter(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, tempSuffix)
	if !ok {
		return 0, false
	}
	pidText, random, ok := strings.Cut(rest, "-")
	if !ok || !allDigits(pidText) || !allDigits(random) || len(pidText) > 10 {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// PyError renders err as Python's str(OSError) naming path, the file the
// user asked for (not the temporary file).
func PyError(err error, path string) error {
	return fmt.Errorf("%s", strings.Replace(pyfmt.ExcStr(err), pyfmt.Repr(errPath(err)), pyfmt.Repr(path), 1))
}

func errPath(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Path
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Old
	}
	return ""
}

// Field walks a dotted path through the document (--field,
// docs/usage.md#output) and returns the value as JSON on one line, as
// Python's json.dumps writes it (", " and ": " between items). A segment
// may end in list indexes: partial_reasons[0], gpu_arch.gfx_targets[-1].
// It walks the typed snapshot (a *schema.Snapshot), or a document as
// pyjson.Decode returned it (--field PATH DOC): the document is not
// encoded whole, so an unrelated deep or large value cannot make the
// lookup fail. The error reads "--field PATH: what is wrong", JSON's type
// names.
func Field(doc any, path string) ([]byte, error) {
	segs, err := fieldSegments(path)
	if err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("--field %s: %s", cli.Clip(path), fmt.Sprintf(format, a...))
	}
	out, err := pyjson.Field(doc, segs)
	var fe *pyjson.FieldError
	if !errors.As(err, &fe) {
		return out, err
	}
	seg, prefix := segs[fe.At], "the document"
	if fe.At > 0 {
		prefix = joinSegments(segs[:fe.At])
	}
	switch {
	case fe.Null:
		return nil, fail("%s is null", cli.Clip(prefix))
	case fe.OutOfRange:
		return nil, fail("index %s out of range: %s has %d item(s)", cli.Clip(strings.Trim(seg, "[]")), cli.Clip(prefix), fe.Len)
	case fe.Type != "":
		want := "an object"
		if strings.HasPrefix(seg, "[") {
			want = "an array"
		}
		return nil, fail("%s is %s, not %s", cli.Clip(prefix), jsonTypeName[fe.Type], want)
	}
	keys := fe.Keys
	sort.Strings(keys)
	more := ""
	if len(keys) > 10 {
		more = fmt.Sprintf(" (+ %d more)", len(keys)-10)
		keys = keys[:10]
	}
	return nil, fail("no key %s in %s (keys: %s%s)", pyfmt.Repr(cli.Clip(seg)), cli.Clip(prefix), strings.Join(keys, ", "), more)
}

// jsonTypeName names the Python types pyjson.FieldError reports as JSON
// does.
var jsonTypeName = map[string]string{"str": "a string", "int": "a number", "float": "a number", "bool": "a boolean", "list": "an array", "dict": "an object"}

// fieldSegments splits a --field path at its dots and before each list
// index: "a.b[0][1]" is a, b, [0], [1]; "[x]" where x is not an integer
// is an error.
//
// CheckField is the same check alone, for the command line: a path that
// is empty or holds a "[…]" that is no list index names nothing in any
// document.
func CheckField(path string) error {
	_, err := fieldSegments(path)
	return err
}

func fieldSegments(path string) ([]string, error) {
	if path == "" {
		return nil, errors.New("--field needs a non-empty path")
	}
	var segs []string
	for _, part := range strings.Split(path, ".") {
		name := part
		var idx []string
		for strings.HasSuffix(name, "]") {
			open := strings.LastIndexByte(name, '[')
			if open < 0 {
				break
			}
			idx = append([]string{name[open:]}, idx...)
			name = name[:open]
		}
		if name != "" || len(idx) == 0 {
			segs = append(segs, name)
		}
		segs = append(segs, idx...)
	}
	for _, seg := range segs {
		if strings.HasPrefix(seg, "[") && strings.HasSuffix(seg, "]") && !isListIndex(seg) {
			return nil, fmt.Errorf("--field %s: %s is not a list index (an integer: [0] the first item, [-1] the last)", cli.Clip(path), cli.Clip(seg))
		}
	}
	return segs, nil
}

// isListIndex reports whether a segment "[…]" holds a list index: an
// integer, "-" before it counting from the end.
func isListIndex(seg string) bool {
	digits := strings.TrimPrefix(seg[1:len(seg)-1], "-")
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// joinSegments is the inverse of fieldSegments.
func joinSegments(segs []string) string {
	var b strings.Builder
	for i, s := range segs {
		if i > 0 && !strings.HasPrefix(s, "[") {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// WriteBy is when a write that waits for its reader (a FIFO nobody opened,
// a pipe nobody drains) is abandoned: at the deadline counted from the
// start, and never less than MinWriteWait after the collection.
func WriteBy(start time.Time, deadline time.Duration) time.Time {
	by, least := start.Add(deadline), time.Now().Add(MinWriteWait)
	if by.Before(least) {
		return least
	}
	return by
}

// MinWriteWait is the least time a reader is given once the document is
// ready (docs/usage.md).
const MinWriteWait = 5 * time.Second
