// Package source reads what the probed machine's kernel and tools say, and
// nothing more: one file per kernel path or tool output, named after it
// (proc_mountinfo.go reads /proc/self/mountinfo, ethtool.go parses
// `ethtool -i`), the way prometheus/procfs is laid out.
//
// An FS holds only the machine root (an internal/machine FS, so --root,
// a capture's recorder and a replay read through it unchanged). Its methods
// return their own typed structs and an error wrapped with %w from the
// shared sentinels (ErrRead, ErrParse, ErrName, ErrCap, ErrChanged); pure Parse… functions
// take a tool's output. The package knows nothing of the document: probe
// maps these structs to schema's blocks and words every reason.
//
// It imports nothing of this module above internal/.
package source

import (
	"errors"
	iofs "io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
)

// The sentinels every error of this package wraps (errors.Is); the read
// error underneath (fs.ErrNotExist, EFBIG, …) is wrapped too.
var (
	// ErrRead: a file, directory or link could not be read.
	ErrRead = errors.New("cannot read")
	// ErrParse: what was read is not in the shape its source has (not
	// UTF-8, empty, not a table of that format).
	ErrParse = errors.New("malformed")
	// ErrName: a name taken from a tool's output cannot name a sysfs
	// entry (see sysName).
	ErrName = errors.New("not a sysfs name")
	// ErrCap: a directory holds more entries than the reader's cap on
	// it; none of them is read.
	ErrCap = errors.New("over the cap")
	// ErrChanged: what was read changed while it was read, and again
	// when read once more.
	ErrChanged = errors.New("changed while read")
)

// FS is the probed machine: its root, nothing else.
type FS struct {
	m *machine.FS
}

// NewFS reads through m (the root of the collection, a recorder's or a
// replay's).
func NewFS(m *machine.FS) FS { return FS{m: m} }

// Error is an error of this package: Kind is one of the sentinels, Path
// what was read, Err the machine's error underneath (nil for a parse
// error). errors.Is finds both Kind and what Err wraps.
type Error struct {
	Kind error
	Path string
	Err  error
}

func (e *Error) Error() string {
	s := e.Kind.Error() + ": " + e.Path
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Cause is the machine's error under err (the *fs.PathError of a read,
// which reasons quote Python's way), or err itself when it has none.
func Cause(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Err != nil {
		return e.Err
	}
	return err
}

// readErr wraps a read error of p with ErrRead.
func readErr(p string, err error) error {
	return &Error{Kind: ErrRead, Path: p, Err: err}
}

// parseErr is an ErrParse of p saying what is wrong.
func parseErr(p, what string) error {
	return &Error{Kind: ErrParse, Path: p, Err: errors.New(what)}
}

// AttrMax bounds an attribute read: a sysfs attribute is at most one page
// (the kernel's show() fills a PAGE_SIZE buffer); anything larger is not
// one.
const AttrMax = 4096

// Attr is one small sysfs or procfs attribute file: at most AttrMax bytes,
// strict UTF-8, Python-stripped (no newline translation). A missing,
// unreadable or larger file is ErrRead; one that is not UTF-8 or is empty
// once stripped is ErrParse.
func (fs FS) Attr(p string) (string, error) {
	b, err := fs.m.ReadFile(p, AttrMax)
	if err != nil {
		return "", readErr(p, err)
	}
	if !utf8.Valid(b) {
		return "", parseErr(p, "not UTF-8")
	}
	s := pyfmt.Strip(string(b))
	if s == "" {
		return "", parseErr(p, "empty")
	}
	return s, nil
}

// linkBase is the basename of the target of symlink p (the driver of
// /sys/class/net/<if>/device/driver -> ../../../bus/pci/drivers/ionic is
// "ionic").
func (fs FS) linkBase(p string) (string, error) {
	t, err := fs.m.Readlink(p)
	if err != nil {
		return "", readErr(p, err)
	}
	return path.Base(strings.TrimRight(t, "/")), nil
}

// sysName checks that a name taken from a tool's output can name a sysfs
// entry: one path element, not "." or "..". Other names (nonsense output)
// are unresolvable rather than walked as paths.
func sysName(n string) error {
	if n == "" || n == "." || n == ".." || strings.Contains(n, "/") {
		return &Error{Kind: ErrName, Path: n}
	}
	return nil
}

// fsNotExist is an ENOENT path error for p (a glob that matched nothing).
func fsNotExist(p string) error {
	return &iofs.PathError{Op: "open", Path: p, Err: syscall.ENOENT}
}

// AttrInt is an attribute holding one decimal integer (Attr, then
// strconv.ParseInt): amdgpu's and the PCI core's numeric files
// (power1_cap in µW, mem_info_vis_vram_total in bytes, numa_node).
func (fs FS) AttrInt(p string) (int64, error) {
	s, err := fs.Attr(p)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, parseErr(p, "not one integer")
	}
	return n, nil
}

// ReadDirMax lists directory p, at most max entries (more reports that
// there were more), for the directories a reader enumerates itself.
func (fs FS) ReadDirMax(p string, max int) ([]iofs.DirEntry, bool, error) {
	es, more, err := fs.m.ReadDirMax(p, max)
	if err != nil {
		return nil, false, readErr(p, err)
	}
	return es, more, nil
}
