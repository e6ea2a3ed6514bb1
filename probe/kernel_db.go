package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"strings"
	"syscall"

	"aorta-probe/internal/lazyre"
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
var gfxDirName = lazyre.New(`^(?i:gfx[0-9a-f]+)$`)

// gfxArch finds gfx + hex digits anywhere in a name (greedy,
// non-overlapping, any case).
var gfxArch = lazyre.New(`(?i:gfx[0-9a-f]+)`)

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

// notThere is a stat error that means "nothing at this path": ENOENT, or
// ENOTDIR (a file on the way). The combined fingerprint skips such a
// directory; any other error (EACCES, ELOOP, EIO) makes it null.
func notThere(err error) bool {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return errors.Is(err, fs.ErrNotExist)
	}
	return en == syscall.ENOENT || en == syscall.ENOTDIR
}

// nameFingerprint is name-fp(dir, suffixes), the filenames-sha256: form
// (docs/rocm-libraries.md#hash-and-fingerprint-forms):
// "filenames-sha256:" + SHA-256 of the sorted names of the kernel files
// directly in dir and, as "<gfxdir>/<name>", one level down in its gfx*
// subdirectories, joined by LF. Members are regular files (links followed)
// whose last extension is one of suffixes (case-sensitive). Every entry is
// stat'ed, whatever its name: nil when dir is not a directory, when it has
// no member, or when any stat or listing fails (a dangling link or a loop
// among the entries included; docs/rocm-libraries.md#stat-based-classification).
func nameFingerprint(s *state, dir string, suffixes []string) *string {
	if fi, err := s.root.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	names, err := kernelNames(s, dir, suffixes, "")
	if err != nil || len(names) == 0 {
		return nil
	}
	fp := filenamesHash(names)
	return &fp
}

// kernelNames lists the directory dir, stat'ing every entry (links
// followed) and every child of a gfx* directory: "<prefix><name>" for each
// regular file with a suffix of suffixes, "<prefix><gfxdir>/<name>" for
// those one level down. Any stat or listing failure is an error: the listing
// is incomplete.
func kernelNames(s *state, dir string, suffixes []string, prefix string) ([]string, error) {
	entries, err := s.root.ReadDirNames(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		p := dir + "/" + e
		fi, err := s.root.Stat(p)
		if err != nil {
			return nil, err
		}
		if fi.Mode().IsRegular() {
			if hasSuffixIn(e, suffixes) {
				names = append(names, prefix+e)
			}
			continue
		}
		if !fi.IsDir() || !gfxDirName().MatchString(e) {
			continue
		}
		sub, err := s.root.ReadDirNames(p)
		if err != nil {
			return nil, err
		}
		for _, f := range sub {
			fi, err := s.root.Stat(p + "/" + f)
			if err != nil {
				return nil, err
			}
			if fi.Mode().IsRegular() && hasSuffixIn(f, suffixes) {
				names = append(names, prefix+e+"/"+f)
			}
		}
	}
	return names, nil
}

// combinedFingerprint is tensile.kernel_db_combined_hash
// (docs/rocm-libraries.md#hash-and-fingerprint-forms): "filenames-sha256:"
// over "<tag>/<name>" and "<tag>/<gfxdir>/<name>" for the kernel files
// (.yaml/.dat/.co, last extension) of each directory and of its gfx*
// subdirectories (one level), tag being the directory's parent name
// (hipblaslt, rocblas). A directory that does not exist (ENOENT, ENOTDIR)
// or is not a directory is skipped; any other stat error of a directory,
// and any listing or stat failure inside one, makes the whole fingerprint
// nil, as does having no kernel file at all.
func combinedFingerprint(s *state, dirs ...string) *string {
	var names []string
	for _, d := range dirs {
		fi, err := s.root.Stat(d)
		if err != nil {
			if notThere(err) {
				continue
			}
			return nil
		}
		if !fi.IsDir() {
			continue
		}
		tag := baseName(parentDir(d))
		if tag == "" {
			tag = baseName(d)
		}
		these, err := kernelNames(s, d, tensileDBSuffixes, tag+"/")
		if err != nil {
			return nil
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
