package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// writeOutput writes doc to OUT the way _probe_main's open(path, "w") would
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
// Errors read as Python's OSError text and name path, as the user gave it.
func writeOutput(path string, doc []byte) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("[Errno 21] Is a directory: %s", pyfmt.Repr(path))
	case err == nil && !fi.Mode().IsRegular():
		return writeThrough(path, doc)
	}
	target, viaProc, err := followLinks(path)
	if err != nil {
		return pyError(err, path)
	}
	if viaProc {
		return writeThrough(path, doc)
	}
	return writeAtomic(target, path, doc)
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
		return pyError(err, path)
	}
	if _, err := f.Write(doc); err != nil {
		f.Close()
		return pyError(err, path)
	}
	if err := f.Close(); err != nil {
		return pyError(err, path)
	}
	return nil
}

// writeAtomic writes doc to path so that path is either absent, its old
// content, or the whole new document: a temporary file in the same
// directory, fsync, rename over path, fsync of the directory. Parent
// directories are not created (as _probe_main). Errors name shown (the
// path the user gave), e.g. "[Errno 2] No such file or directory: '/x/env.json'".
func writeAtomic(path, shown string, doc []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return pyError(err, shown)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return pyError(err, shown)
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
		return pyError(err, shown)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return pyError(err, shown)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// pyError renders err as Python's str(OSError) naming path, the file the
// user asked for (not the temporary file).
func pyError(err error, path string) error {
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

// lookupField walks a dotted path through the document exactly as
// `aorta env probe --field` does (context.md §22.5) and returns the value as
// compact JSON.
func lookupField(snap *schema.Snapshot, path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("--field path must be non-empty")
	}
	v, err := schema.Decode(string(schema.Encode(snap)))
	if err != nil {
		return nil, err
	}
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		prefix := "<root>"
		if i > 0 {
			prefix = strings.Join(segs[:i], ".")
		}
		switch cur := v.(type) {
		case nil:
			return nil, fmt.Errorf("Cannot descend into '%s' at '%s': value is null", seg, prefix)
		case schema.Map[any]:
			next, ok := cur.Get(seg)
			if !ok {
				keys := cur.Keys()
				sort.Strings(keys)
				more := ""
				if len(keys) > 10 {
					more = fmt.Sprintf(" (+ %d more)", len(keys)-10)
					keys = keys[:10]
				}
				return nil, fmt.Errorf("Key '%s' not found at '%s'. Available keys: %s%s", seg, prefix, strings.Join(keys, ", "), more)
			}
			v = next
		default:
			return nil, fmt.Errorf("Cannot descend into '%s' at '%s': value is %s, not an object", seg, prefix, pyTypeName(cur))
		}
	}
	return schema.EncodeCompact(v), nil
}

func pyTypeName(v any) string {
	switch t := v.(type) {
	case string:
		return "str"
	case bool:
		return "bool"
	case []any:
		return "list"
	case schema.Number:
		if t.IsInteger() {
			return "int"
		}
		return "float"
	}
	return fmt.Sprintf("%T", v)
}
