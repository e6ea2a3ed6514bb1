package probe

import (
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyfmt"
)

// TestAncestorNamespace walks fake parent chains: a differing
// grandparent fires, a chain that reaches PID 1 or loops does not, and an
// unreadable link stops the walk with its error.
func TestAncestorNamespace(t *testing.T) {
	const self = "mnt:[4026532178]"
	tests := []struct {
		name    string
		kind    string // default mnt (from the grandparent); net walks from the parent
		ppid    int
		archive string
		source  string
		obs     string // "" means null
		err     string
		differs bool
	}{
		{name: "no parent", ppid: 0, source: "/proc/self/status PPid", obs: "no ancestor beyond the parent"},
		{name: "parent is pid 1", ppid: 1, source: "/proc/self/status PPid", obs: "no ancestor beyond the parent"},
		{
			name: "grandparent differs", ppid: 20,
			archive: "-- proc/20/status --\nPPid:\t10\n-- proc/10/ns/mnt -> mnt:[4026531840] --\n",
			source:  "/proc/10/ns/mnt", obs: "mnt:[4026532178] vs mnt:[4026531840] (pid 10, 2 levels up)", differs: true,
		},
		{
			name: "great-grandparent differs", ppid: 20,
			archive: "-- proc/20/status --\nPPid:\t10\n-- proc/10/ns/mnt -> mnt:[4026532178] --\n" +
				"-- proc/10/status --\nPPid:\t5\n-- proc/5/ns/mnt -> mnt:[4026531840] --\n",
			source: "/proc/5/ns/mnt", obs: "mnt:[4026532178] vs mnt:[4026531840] (pid 5, 3 levels up)", differs: true,
		},
		{
			name: "chain reaches pid 1", ppid: 20,
			archive: "-- proc/20/status --\nPPid:\t10\n-- proc/10/ns/mnt -> mnt:[4026532178] --\n" +
				"-- proc/10/status --\nPPid:\t1\n",
			source: "/proc/10/status", obs: "1 ancestors above the parent share mnt:[4026532178]",
		},
		{
			name: "loop", ppid: 20,
			archive: "-- proc/20/status --\nPPid:\t10\n-- proc/10/ns/mnt -> mnt:[4026532178] --\n" +
				"-- proc/10/status --\nPPid:\t20\n-- proc/20/ns/mnt -> mnt:[4026532178] --\n",
			source: "/proc/10/status", obs: "1 ancestors above the parent share mnt:[4026532178]",
		},
		{
			name: "malformed status", ppid: 20,
			archive: "-- proc/20/status --\nPPid:\tten\n",
			source:  "/proc/20/status", obs: "0 ancestors above the parent share mnt:[4026532178]",
		},
		{
			name: "status unreadable", ppid: 20,
			source: "/proc/20/status", err: "[Errno 2] No such file or directory: '/proc/20/status'",
		},
		{
			name: "link unreadable", ppid: 20,
			archive: "-- proc/20/status --\nPPid:\t10\n",
			source:  "/proc/10/ns/mnt", err: "[Errno 2] No such file or directory: '/proc/10/ns/mnt'",
		},
		{name: "net no parent", kind: "net", ppid: 0, source: "/proc/self/status PPid", obs: "no parent visible"},
		{
			name: "net parent differs", kind: "net", ppid: 20,
			archive: "-- proc/20/ns/net -> net:[4026531840] --\n",
			source:  "/proc/20/ns/net", obs: "net:[4026532178] vs net:[4026531840] (pid 20, 1 levels up)", differs: true,
		},
		{
			name: "net grandparent differs", kind: "net", ppid: 20,
			archive: "-- proc/20/ns/net -> net:[4026532178] --\n-- proc/20/status --\nPPid:\t10\n-- proc/10/ns/net -> net:[4026531840] --\n",
			source:  "/proc/10/ns/net", obs: "net:[4026532178] vs net:[4026531840] (pid 10, 2 levels up)", differs: true,
		},
		{
			name: "net chain ends at pid 1", kind: "net", ppid: 20,
			archive: "-- proc/20/ns/net -> net:[4026532178] --\n-- proc/20/status --\nPPid:\t1\n-- proc/1/ns/net -> net:[4026532178] --\n",
			source:  "/proc/1/ns/net", obs: "2 ancestors share net:[4026532178]",
		},
		{
			name: "net parent is pid 1", kind: "net", ppid: 1,
			archive: "-- proc/1/ns/net -> net:[4026531840] --\n",
			source:  "/proc/1/ns/net", obs: "net:[4026532178] vs net:[4026531840] (pid 1, 1 levels up)", differs: true,
		},
		{
			name: "net parent unreadable", kind: "net", ppid: 20,
			source: "/proc/20/ns/net", err: "[Errno 2] No such file or directory: '/proc/20/ns/net'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			a, err := fakeroot.Parse([]byte("fake chain\n" + tt.archive))
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Expand(root); err != nil {
				t.Fatal(err)
			}
			s := &state{collector: &collector{root: newRootFS(root, "/", false)}}
			kind, self, fromParent := "mnt", self, false
			if tt.kind == "net" {
				kind, self, fromParent = "net", "net:[4026532178]", true
			}
			source, obs, gotErr, differs := ancestorNamespace(s, tt.ppid, kind, self, fromParent)
			if source != tt.source || differs != tt.differs {
				t.Errorf("source, differs = %q, %v; want %q, %v", source, differs, tt.source, tt.differs)
			}
			switch {
			case tt.obs == "" && obs != nil:
				t.Errorf("observed = %q, want null", *obs)
			case tt.obs != "" && (obs == nil || *obs != tt.obs):
				t.Errorf("observed = %v, want %q", obs, tt.obs)
			}
			switch {
			case tt.err == "" && gotErr != nil:
				t.Errorf("error = %v, want none", gotErr)
			case tt.err != "" && (gotErr == nil || pyfmt.ExcStr(gotErr) != tt.err):
				t.Errorf("error = %v, want %q", gotErr, tt.err)
			}
		})
	}
}
