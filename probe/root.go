package probe

import (
	"aorta-probe/internal/pyfmt"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// fsroot is the filesystem the probe describes: "/" in production, a fake
// machine root in tests, a mounted host or image on request. Every read
// takes the absolute path as the probed machine sees it; errors carry that
// logical path, never the host path of the root.
type fsroot string

// maxTextFile bounds read-text: version files, headers and sysfs attributes
// are bytes to kilobytes, and a multi-gigabyte "version" file must not be
// read into memory. A larger file reads as unreadable.
const maxTextFile = 4 << 20

func (r fsroot) path(p string) string {
	if r == "/" || r == "" {
		return p
	}
	return filepath.Join(string(r), p)
}

// logical rewrites the path inside a *fs.PathError or *os.LinkError back to
// the machine's view of it.
func (r fsroot) logical(err error, p string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	return err
}

// readFile reads a whole regular file, at most max bytes (larger is an
// EFBIG error).
func (r fsroot) readFile(p string, max int64) ([]byte, error) {
	b, err := r.readHead(p, max+1)
	if err == nil && int64(len(b)) > max {
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EFBIG}
	}
	return b, err
}

// readHead reads the first n bytes of a regular file (fewer when it is
// shorter). A FIFO, a device node or a directory where a file was expected
// is an error, never a hang: the file is opened non-blocking and checked
// with fstat before reading. procfs and sysfs files (size 0 in stat) are
// read until EOF.
func (r fsroot) readHead(p string, n int64) ([]byte, error) {
	f, err := os.OpenFile(r.path(p), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, r.logical(err, p)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, r.logical(err, p)
	}
	if !fi.Mode().IsRegular() {
		errno := syscall.EINVAL
		if fi.IsDir() {
			errno = syscall.EISDIR
		}
		return nil, &fs.PathError{Op: "read", Path: p, Err: errno}
	}
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, r.logical(err, p)
	}
	return b, nil
}

// readText is the spec's read-text (core.md §3.1, context.md §0.2): the whole
// file as strict UTF-8 with universal newlines, Python-stripped; nil when
// missing, unreadable, not UTF-8, or empty after stripping.
func (r fsroot) readText(p string) *string {
	b, err := r.readFile(p, maxTextFile)
	if err != nil || !utf8.Valid(b) {
		return nil
	}
	s := pyStrip(universalNewlines(string(b)))
	if s == "" {
		return nil
	}
	return &s
}

func (r fsroot) readlink(p string) (string, error) {
	t, err := os.Readlink(r.path(p))
	return t, r.logical(err, p)
}

func (r fsroot) stat(p string) (fs.FileInfo, error) {
	fi, err := os.Stat(r.path(p))
	return fi, r.logical(err, p)
}

// exists follows symlinks; any error is "does not exist", as Python's
// os.path.exists.
func (r fsroot) exists(p string) bool {
	_, err := os.Stat(r.path(p))
	return err == nil
}

func (r fsroot) isDir(p string) bool {
	fi, err := os.Stat(r.path(p))
	return err == nil && fi.IsDir()
}

func (r fsroot) isRegular(p string) bool {
	fi, err := os.Stat(r.path(p))
	return err == nil && fi.Mode().IsRegular()
}

func (r fsroot) readDir(p string) ([]fs.DirEntry, error) {
	es, err := os.ReadDir(r.path(p))
	return es, r.logical(err, p)
}

// universalNewlines turns CRLF and lone CR into LF, as Python's text mode.
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// pyStrip is Python's str.strip() with no argument (pyfmt.Strip).
func pyStrip(s string) string { return pyfmt.Strip(s) }

// isPySpace is Python's str.isspace() for one code point (pyfmt.IsSpace).
func isPySpace(r rune) bool { return pyfmt.IsSpace(r) }

// pySplitlines is Python's str.splitlines(): it breaks on \n, \r\n, \r, \v,
// \f, \x1c-\x1e, \x85, U+2028 and U+2029, and drops the final empty line.
func pySplitlines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			i += size
			start = i
			continue
		case '\r':
			out = append(out, s[start:i])
			i += size
			if i < len(s) && s[i] == '\n' {
				i++
			}
			start = i
			continue
		}
		i += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
