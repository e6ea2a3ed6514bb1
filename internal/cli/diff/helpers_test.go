package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/fleetgen"
	"aorta-probe/internal/pyjson"
)

// The documents these tests compare: golden scenario documents with
// edits, as triage's own tests build them (triage/helpers_test.go).

// object is a decoded JSON object, members in document order.
type object = pyjson.Map[any]

// goldenBytes is a scenario document the probe wrote (testdata/golden).
func goldenBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden reads a scenario document the probe wrote (testdata/golden).
func golden(t testing.TB, name string) object {
	t.Helper()
	v, err := pyjson.Decode(string(goldenBytes(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	return v.(object)
}

// edit is a change to a decoded document.
type edit func(t testing.TB, m object) object

// set replaces (or adds) the value at a dotted path; parents must exist.
func set(path string, v any) edit {
	return func(t testing.TB, m object) object {
		return setIn(t, m, strings.Split(path, "."), v, false)
	}
}

// del removes the key at a dotted path.
func del(path string) edit {
	return func(t testing.TB, m object) object {
		return setIn(t, m, strings.Split(path, "."), nil, true)
	}
}

func setIn(t testing.TB, m object, keys []string, v any, remove bool) object {
	t.Helper()
	out := make(object, 0, len(m)+1)
	found := false
	for _, e := range m {
		if e.Key != keys[0] {
			out = append(out, e)
			continue
		}
		found = true
		switch {
		case len(keys) > 1:
			child, ok := e.Value.(object)
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

// doc is a golden document with edits (name is unused: the call shape
// of triage's own helper, whose documents these tests write).
func doc(t testing.TB, _, goldenFile string, edits ...edit) object {
	t.Helper()
	m := golden(t, goldenFile)
	for _, e := range edits {
		m = e(t, m)
	}
	return m
}

// placed gives a document a namespace, as a run with /proc has.
var placed = set("probe_namespace", "mnt:50d635339c5cddd4")

// nsTypes are the namespace types of probe_provenance.identity, in order.
var nsTypes = []string{"mnt", "net", "pid", "user", "uts", "ipc", "cgroup", "time"}

// identityEdit sets probe_provenance.identity: boot (nil: unreadable),
// ids (nil entries: the ioctl failed with ENOTTY) and inode hashes (nil:
// none) for nsTypes in order; a short list leaves the rest null.
func identityEdit(boot any, ids []any, inodes []any) edit {
	return func(t testing.TB, m object) object {
		var nss []any
		grade := "none"
		for i, typ := range nsTypes {
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
			nss = append(nss, object{{Key: "type", Value: typ}, {Key: "id", Value: id}, {Key: "source", Value: src},
				{Key: "reason", Value: reason}, {Key: "inode_hash", Value: ino}})
		}
		var bootReason any
		if boot == nil {
			bootReason = "/proc/sys/kernel/random/boot_id unreadable"
		}
		id := object{{Key: "grade", Value: grade}, {Key: "answered_by", Value: "kernel"},
			{Key: "boot", Value: object{{Key: "fingerprint", Value: boot}, {Key: "reason", Value: bootReason}}},
			{Key: "namespaces", Value: nss}}
		return set("probe_provenance.identity", id)(t, m)
	}
}

// num is a JSON integer as the decoder gives it.
func num(s string) any { return pyjson.Number(s) }

// hostIDs are the namespace ids of a host process on boot "boot:aa".
var hostIDs = []any{num("4"), num("3"), num("4100"), num("4099"), num("1"), num("4098"), num("5"), num("2")}

// proven gives a document the host's proof-grade identity.
var proven = identityEdit("boot:aa", hostIDs, nil)

// fleetTemplate is fleetgen.Template over the golden rocm-classic-7.2.json
// document, with set's fields.
func fleetTemplate(t testing.TB, set map[string]any) []byte {
	t.Helper()
	tmpl, err := fleetgen.Template(goldenBytes(t, "rocm-classic-7.2.json"), 0, set)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}
