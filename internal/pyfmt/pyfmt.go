// Package pyfmt renders Go values and errors as Python prints them, for the
// reason templates that embed Python text
// (docs/design-notes.md#python-text-fidelity) and for read-text's strip
// (docs/rocm-libraries.md#read-text).
package pyfmt

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// errnoText is glibc's strerror, which Python prints (Go's texts are
// lower-case and sometimes worded differently).
var errnoText = map[syscall.Errno]string{
	syscall.EPERM:        "Operation not permitted",
	syscall.ENOENT:       "No such file or directory",
	syscall.ESRCH:        "No such process",
	syscall.EINTR:        "Interrupted system call",
	syscall.EIO:          "Input/output error",
	syscall.ENXIO:        "No such device or address",
	syscall.E2BIG:        "Argument list too long",
	syscall.ENOEXEC:      "Exec format error",
	syscall.EBADF:        "Bad file descriptor",
	syscall.ECHILD:       "No child processes",
	syscall.EAGAIN:       "Resource temporarily unavailable",
	syscall.ENOMEM:       "Cannot allocate memory",
	syscall.EACCES:       "Permission denied",
	syscall.EBUSY:        "Device or resource busy",
	syscall.EEXIST:       "File exists",
	syscall.EXDEV:        "Invalid cross-device link",
	syscall.ENODEV:       "No such device",
	syscall.ENOTDIR:      "Not a directory",
	syscall.EISDIR:       "Is a directory",
	syscall.EINVAL:       "Invalid argument",
	syscall.EMFILE:       "Too many open files",
	syscall.ETXTBSY:      "Text file busy",
	syscall.EFBIG:        "File too large",
	syscall.ENOSPC:       "No space left on device",
	syscall.EROFS:        "Read-only file system",
	syscall.EPIPE:        "Broken pipe",
	syscall.ENAMETOOLONG: "File name too long",
	syscall.ELOOP:        "Too many levels of symbolic links",
	syscall.ESTALE:       "Stale file handle",
	syscall.EDQUOT:       "Disk quota exceeded",
	syscall.ETIMEDOUT:    "Connection timed out",
}

// errnoClass is Python's OSError subclass for an errno (PEP 3151).
var errnoClass = map[syscall.Errno]string{
	syscall.ENOENT:       "FileNotFoundError",
	syscall.EACCES:       "PermissionError",
	syscall.EPERM:        "PermissionError",
	syscall.ENOTDIR:      "NotADirectoryError",
	syscall.EISDIR:       "IsADirectoryError",
	syscall.EEXIST:       "FileExistsError",
	syscall.EINTR:        "InterruptedError",
	syscall.ETIMEDOUT:    "TimeoutError",
	syscall.ECONNREFUSED: "ConnectionRefusedError",
	syscall.ECHILD:       "ChildProcessError",
	syscall.EAGAIN:       "BlockingIOError",
	syscall.ESRCH:        "ProcessLookupError",
	syscall.EPIPE:        "BrokenPipeError",
	syscall.ECONNRESET:   "ConnectionResetError",
	syscall.ECONNABORTED: "ConnectionAbortedError",
}

// Errno is the errno Python's OSError would carry for err: the
// syscall.Errno anywhere in its chain (errors.As), or ENOENT for a program
// not found on the search path (exec.ErrNotFound; Python raises
// FileNotFoundError).
func Errno(err error) (syscall.Errno, bool) {
	if errors.Is(err, exec.ErrNotFound) {
		return syscall.ENOENT, true
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return en, true
	}
	return 0, false
}

// ExcType is the Python exception class name Python would raise for err.
func ExcType(err error) string {
	var t interface{ Timeout() bool }
	if errors.As(err, &t) && t.Timeout() {
		return "TimeoutExpired"
	}
	if en, ok := Errno(err); ok {
		if c, ok := errnoClass[en]; ok {
			return c
		}
		return "OSError"
	}
	return "OSError"
}

// ExcStr is Python's str(exc) for err: "[Errno 2] No such file or
// directory: '/proc/self/ns/mnt'" for an OS error on a path.
func ExcStr(err error) string {
	en, ok := Errno(err)
	if !ok {
		return err.Error()
	}
	text, known := errnoText[en]
	if !known {
		text = en.Error()
		if text != "" {
			text = strings.ToUpper(text[:1]) + text[1:]
		}
	}
	s := fmt.Sprintf("[Errno %d] %s", int(en), text)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		s += ": " + Repr(pe.Path)
	}
	return s
}

// Repr is Python's repr() of a str: single quotes unless the text holds a
// single quote and no double quote; backslash escapes for \\, the quote,
// \n, \r, \t; other non-printables as \xNN, \uNNNN or \UNNNNNNNN; bytes
// that are not UTF-8 as the surrogates \udcNN that surrogateescape gives.
func Repr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\udc%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || (r > ' ' && r < 0x7f) || (r >= 0xa0 && unicode.IsPrint(r)):
			b.WriteString(s[i : i+size])
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	b.WriteByte(q)
	return b.String()
}

// FirstRunes returns the first n code points of s (Python's s[:n]).
func FirstRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// IsSpace is Python's str.isspace() for one code point (also what the re
// module's \s matches): Unicode whitespace plus the ASCII separators
// U+001C..U+001F that Go's unicode.IsSpace leaves out.
func IsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// Strip is Python's str.strip() with no argument.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }
