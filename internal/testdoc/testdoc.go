// Package testdoc builds the documents tests compare: golden scenario
// documents the probe wrote (testdata/golden), decoded, with edits; and
// the fixtures more than one package's tests read (torch.go). It is for
// tests only; nothing the binary links imports it.
package testdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// Object is a decoded JSON object, members in document order.
type Object = pyjson.Map[any]

// Edit is a change to a decoded document.
type Edit func(t testing.TB, m Object) Object

// GoldenBytes is the scenario document name of testdata/golden
// (moduleFile).
func GoldenBytes(t testing.TB, name string) []byte {
	t.Helper()
	return moduleFile(t, "testdata", "golden", name)
}

// moduleFile is the file of the repository at elem, found from the test's
// directory upwards (the module root holds go.mod).
func moduleFile(t testing.TB, elem ...string) []byte {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testdoc: no go.mod above the test's directory")
		}
		dir = parent
	}
	b, err := os.ReadFile(filepath.Join(append([]string{dir}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Golden is the decoded scenario document name (GoldenBytes).
func Golden(t testing.TB, name string) Object {
	t.Helper()
	v, err := pyjson.Decode(string(GoldenBytes(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	return v.(Object)
}

// Edited is the golden document name with edits applied in order.
func Edited(t testing.TB, name string, edits ...Edit) Object {
	t.Helper()
	m := Golden(t, name)
	for _, e := range edits {
		m = e(t, m)
	}
	return m
}

// Set replaces (or adds) the value at a dotted path; parents must exist.
func Set(path string, v any) Edit {
	return func(t testing.TB, m Object) Object {
		return setIn(t, m, strings.Split(path, "."), v, false)
	}
}

// Del removes the key at a dotted path.
func Del(path string) Edit {
	return func(t testing.TB, m Object) Object {
		return setIn(t, m, strings.Split(path, "."), nil, true)
	}
}

func setIn(t testing.TB, m Object, keys []string, v any, remove bool) Object {
	t.Helper()
	out := make(Object, 0, len(m)+1)
	found := false
	for _, e := range m {
		if e.Key != keys[0] {
			out = append(out, e)
			continue
		}
		found = true
		switch {
		case len(keys) > 1:
			child, ok := e.Value.(Object)
			if !ok {
				t.Fatalf("%s is not an object", strings.Join(keys, "."))
			}
			out = append(out, pyjson.Entry[any]{Key: e.Key, Value: setIn(t, child, keys[1:], v, remove)})
		case !remove:
			out = append(out, pyjson.Entry[any]{Key: e.Key, Value: v})
		}
	}
	if !found {
		if len(keys) > 1 || remove {
			t.Fatalf("no key %s", strings.Join(keys, "."))
		}
		out = append(out, pyjson.Entry[any]{Key: keys[0], Value: v})
	}
	return out
}

// Placed gives a document a namespace, as a run with /proc has.
var Placed = Set("probe_namespace", "mnt:50d635339c5cddd4")

// NSTypes are the namespace types of probe_provenance.identity, in order
// (docs/isolation.md#placement-identity).
var NSTypes = []string{"mnt", "net", "pid", "user", "uts", "ipc", "cgroup", "time"}

// Identity sets probe_provenance.identity: boot (nil: unreadable), ids
// (nil entries: the ioctl failed with ENOTTY) and inode hashes (nil: none)
// for NSTypes in order; a short list leaves the rest null.
func Identity(boot any, ids []any, inodes []any) Edit {
	return func(t testing.TB, m Object) Object {
		var nss []any
		grade := "none"
		for i, typ := range NSTypes {
			var id, ino, src, reason any = nil, nil, nil, "NS_GET_ID: ENOTTY (a kernel before 6.18)"
			if i < len(ids) && ids[i] != nil {
				id, src, reason = ids[i], "NS_GET_ID", nil
			}
			if i < len(inodes) {
				ino = inodes[i]
			}
			if typ == "mnt" && ino != nil {
				grade = "advisory"
			}
			if typ == "mnt" && id != nil && boot != nil {
				grade = "proof"
			}
			nss = append(nss, Object{{Key: "type", Value: typ}, {Key: "id", Value: id}, {Key: "source", Value: src},
				{Key: "reason", Value: reason}, {Key: "inode_hash", Value: ino}})
		}
		var bootReason any
		if boot == nil {
			bootReason = "/proc/sys/kernel/random/boot_id unreadable"
		}
		id := Object{{Key: "grade", Value: grade}, {Key: "answered_by", Value: "kernel"},
			{Key: "boot", Value: Object{{Key: "fingerprint", Value: boot}, {Key: "reason", Value: bootReason}}},
			{Key: "namespaces", Value: nss}}
		return Set("probe_provenance.identity", id)(t, m)
	}
}

// Root sets probe_provenance.identity.root: the mount id and its source
// (nil: none), device and inode (nil: unknown). Apply it after Identity.
func Root(mountID, source, device, inode any) Edit {
	var reason any
	if source != "STATX_MNT_ID_UNIQUE" {
		reason = "STATX_MNT_ID_UNIQUE not answered (a kernel before 6.8)"
	}
	return Set("probe_provenance.identity.root", Object{{Key: "mount_id", Value: mountID}, {Key: "source", Value: source},
		{Key: "reason", Value: reason}, {Key: "device", Value: device}, {Key: "inode", Value: inode}})
}

// HostIDs are the namespace ids of a host process on boot "boot:aa".
var HostIDs = []any{pyjson.Number("4"), pyjson.Number("3"), pyjson.Number("4100"), pyjson.Number("4099"),
	pyjson.Number("1"), pyjson.Number("4098"), pyjson.Number("5"), pyjson.Number("2")}

// Proven gives a document the host's proof-grade identity.
var Proven = Identity("boot:aa", HostIDs, nil)
