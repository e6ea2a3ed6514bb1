package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"syscall"

	"aorta-probe/internal/pyfmt"
)

// Tensile's kernel-DB suffixes for the filename fingerprints; MIOpen's
// kernel_db_revision uses miopenDBSuffixes.
var (
	tensileDBSuffixes = []string{".yaml", ".dat", ".co"}
	miopenDBSuffixes  = []string{".txt"}
)

// gfxDirName is a whole directory name gfx + hex digits, any case
// ("gfx950", "gfx90a", "GFX942"; not "gfx942_120").
var gfxDirName = regexp.MustCompile(`^(?i:gfx[0-9a-f]+)$`)

// gfxArch finds gfx + hex digits anywhere in a name (greedy,
// non-overlapping, any case).
var gfxArch = regexp.MustCompile(`(?i:gfx[0-9a-f]+)`)

// pySuffix is Python's PurePath.suffix of a path's last component: from
// the final dot, but a name whose only dot is the first character, or that
// ends in a dot, has none (".dat" and "x." have no suffix; "a.b.dat" has
// ".dat").
func pySuffix(p string) string {
	name := p[strings.LastIndexByte(p, '/')+1:]
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return ""
	}
	return name[i:]
}

func hasSuffixIn(name string, suffixes []string) bool {
	suf := pySuffix(name)
	for _, s := range suffixes {
		if suf == s {
			return true
		}
	}
	return false
}

// ignoredStatErr is a stat error that pathlib's is_file()/is_dir() swallow:
// ENOENT, ENOTDIR, EBADF and ELOOP mean "not a file", anything else (EACCES
// on a directory on the way, EIO) propagates.
func ignoredStatErr(err error) bool {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return errors.Is(err, fs.ErrNotExist)
	}
	switch en {
	case syscall.ENOENT, syscall.ENOTDIR, syscall.EBADF, syscall.ELOOP:
		return true
	}
	return false
}

// statKind is pathlib's is_file()/is_dir() with its error rule.
func (s *state) statKind(p string) (isFile, isDir bool, err error) {
	fi, err := s.root.stat(p)
	if err != nil {
		if ignoredStatErr(err) {
			return false, false, nil
		}
		return false, false, err
	}
	return fi.Mode().IsRegular(), fi.IsDir(), nil
}

// nameFingerprint is name-fp(dir, suffixes), the filenames-sha256: form
// (docs/rocm-libraries.md#hash-and-fingerprint-forms):
// "filenames-sha256:" + SHA-256 of the sorted names of the kernel files
// directly in dir and, as "<gfxdir>/<name>", one level down in its gfx*
// subdirectories, joined by LF. Members are regular files (links followed,
// broken links excluded) whose last extension is one of suffixes
// (case-sensitive). Nil when dir is not a directory, when it has no member,
// or when any listing or stat fails.
func nameFingerprint(s *state, dir string, suffixes []string) *string {
	if !s.root.isDir(dir) {
		return nil
	}
	names, err := kernelNames(s, dir, suffixes)
	if err != nil || len(names) == 0 {
		return nil
	}
	fp := filenamesHash(names)
	return &fp
}

func kernelNames(s *state, dir string, suffixes []string) ([]string, error) {
	entries, err := s.root.readDirNames(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		p := dir + "/" + e
		isFile, isDir, err := s.statKind(p)
		if err != nil {
			return nil, err
		}
		if isFile && hasSuffixIn(e, suffixes) {
			names = append(names, e)
		}
		if !isDir || !gfxDirName.MatchString(e) {
			continue
		}
		sub, err := s.root.readDirNames(p)
		if err != nil {
			return nil, err
		}
		for _, f := range sub {
			isFile, _, err := s.statKind(p + "/" + f)
			if err != nil {
				return nil, err
			}
			if isFile && hasSuffixIn(f, suffixes) {
				names = append(names, e+"/"+f)
			}
		}
	}
	return names, nil
}

// combinedFingerprint is tensile.kernel_db_combined_hash
// (docs/rocm-libraries.md#hash-and-fingerprint-forms): "filenames-sha256:"
// over "<tag>/<name>" for the kernel files (.yaml/.dat/.co, last extension)
// directly in each directory, tag being the directory's parent name
// (hipblaslt, rocblas). No gfx subdirectory recursion; a directory that
// cannot be listed is skipped; nil when there is no entry at all.
func combinedFingerprint(s *state, dirs ...string) *string {
	var names []string
	for _, d := range dirs {
		if !s.root.isDir(d) {
			continue
		}
		tag := baseName(parentDir(d))
		if tag == "" {
			tag = baseName(d)
		}
		entries, err := s.root.readDirNames(d)
		if err != nil {
			continue
		}
		var these []string
		for _, e := range entries {
			isFile, _, err := s.statKind(d + "/" + e)
			if err != nil {
				these = nil // the guard covers the whole directory
				break
			}
			if isFile && hasSuffixIn(e, tensileDBSuffixes) {
				these = append(these, tag+"/"+e)
			}
		}
		names = append(names, these...)
	}
	if len(names) == 0 {
		return nil
	}
	fp := filenamesHash(names)
	return &fp
}

// filenamesHash sorts names by code point and hashes them joined by LF.
// Names that are not UTF-8 are hashed as their raw bytes (what
// surrogateescape encoding would give; Python itself fails on them).
func filenamesHash(names []string) string {
	pyfmt.Sort(names)
	sum := sha256.Sum256([]byte(strings.Join(names, "\n")))
	return "filenames-sha256:" + hex.EncodeToString(sum[:])
}

func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

func parentDir(p string) string {
	p = strings.TrimRight(p, "/")
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}
