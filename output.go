package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// writeAtomic writes doc to path so that path is either absent, its old
// content, or the whole new document: a temporary file in the same
// directory, fsync, rename over path, fsync of the directory. Parent
// directories are not created (as _probe_main). The error reads as
// Python's OSError text, e.g. "[Errno 2] No such file or directory: '/x/env.json'".
func writeAtomic(path string, doc []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("[Errno 21] Is a directory: %s", pyfmt.Repr(path))
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return pyError(err, path)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return pyError(err, path)
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
		return pyError(err, path)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return pyError(err, path)
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
