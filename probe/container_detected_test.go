package probe

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
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
			root := testtree.Archive(t, "fake chain\n"+tt.archive)
			s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Root: root, Cwd: "/"}})}
			kind, self, fromParent := "mnt", self, false
			if tt.kind == "net" {
				kind, self, fromParent = "net", "net:[4026532178]", true
			}
			source, obs, gotErr, differs := ancestorNamespace(&isoInputs{s: s}, tt.ppid, kind, self, fromParent)
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

// TestIsolationCases runs collectContainerDetected over fake roots for the
// placement blind spots of docs/isolation.md: what must decide, what only
// corroborates, and which contradictions the whole evidence allows.
func TestIsolationCases(t *testing.T) {
	t.Parallel()
	// initialNS is a process in every initial namespace but mnt and net.
	const initialNS = "-- proc/self/ns/pid -> pid:[4026531836] --\n-- proc/self/ns/user -> user:[4026531837] --\n" +
		"-- proc/self/ns/cgroup -> cgroup:[4026531835] --\n-- proc/self/ns/uts -> uts:[4026531838] --\n" +
		"-- proc/self/ns/ipc -> ipc:[4026531839] --\n-- proc/self/ns/time -> time:[4026531834] --\n" +
		"-- proc/self/uid_map --\n0 0 4294967295\n-- proc/1/cgroup --\n0::/init.scope\n-- proc/self/cgroup --\n0::/user.slice\n"
	const ext4Root = "-- proc/self/mountinfo --\n27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	// status has PPid 1 (a process that left its sandbox's tree is
	// re-parented to PID 1), whose links are unreadable (no ptrace rights).
	status := func(tracer int) string {
		return fmt.Sprintf("-- proc/self/status --\nPid:\t2481\nPPid:\t1\nTracerPid:\t%d\nNSpid:\t2481\n", tracer)
	}
	hostNS := "-- proc/self/ns/mnt -> mnt:[4026531832] --\n-- proc/self/ns/net -> net:[4026531833] --\n"
	tests := []struct {
		name     string
		archive  string
		env      map[string]string
		release  string // default 6.8.0-49-generic
		detected bool
		fired    []string
		silent   []string
		observed map[string]string // signal -> substring of observed
		contra   []string          // substrings, one per contradiction, in order
	}{
		{
			name: "k8s variable on a bare host", archive: initialNS + hostNS + ext4Root + status(0),
			env:    map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1"},
			fired:  []string{"kubernetes_service_env"},
			contra: []string{"only corroborating signals fired (kubernetes_service_env)"},
		},
		{
			name: "btrfs subvolume root on a bare host", archive: initialNS + hostNS + status(0) +
				"-- proc/self/mountinfo --\n36 1 0:32 /@ / rw,relatime shared:1 - btrfs /dev/sda2 rw,subvol=/@\n",
			fired: []string{"root_mount_container_like"}, silent: []string{"root_mount_unlisted"},
			contra: []string{"only corroborating signals fired (root_mount_container_like)"},
		},
		{
			name: "unshare -m, setsid: mount namespace not initial, net shows the numbering", archive: initialNS + ext4Root + status(0) +
				"-- proc/self/ns/mnt -> mnt:[4026532175] --\n-- proc/self/ns/net -> net:[4026531833] --\n",
			detected: true, fired: []string{"mnt_ns_not_initial"}, silent: []string{"net_ns_not_initial"},
			observed: map[string]string{"mnt_ns_not_initial": "mnt:[4026532175] (initial 4026531832: this kernel numbers initial namespaces so, as net:[4026531833] shows)"},
			contra:   []string{"but mnt_ns_not_initial fired: an unmarked sandbox"},
		},
		{
			name: "unshare -n, setsid", archive: initialNS + ext4Root + status(0) +
				"-- proc/self/ns/mnt -> mnt:[4026531832] --\n-- proc/self/ns/net -> net:[4026532180] --\n",
			detected: true, fired: []string{"net_ns_not_initial"}, silent: []string{"mnt_ns_not_initial"},
			observed: map[string]string{"net_ns_not_initial": "as mnt:[4026531832] shows"},
			contra:   []string{"but net_ns_not_initial fired: an unmarked sandbox"},
		},
		{
			name: "old kernel: dynamic numbers are not compared", archive: initialNS + ext4Root + status(0) +
				"-- proc/self/ns/mnt -> mnt:[4026531840] --\n-- proc/self/ns/net -> net:[4026531992] --\n",
			silent: []string{"mnt_ns_not_initial", "net_ns_not_initial"},
			observed: map[string]string{"mnt_ns_not_initial": "mnt:[4026531840] (not compared: kernel 6.8.0-49-generic is not known to fix the initial number (6.18 and later do)",
				"net_ns_not_initial": "not compared"},
		},
		{
			name: "kernel 6.18 fixes the numbers", release: "6.18.44-fc-v1147", archive: initialNS + ext4Root + status(0) +
				"-- proc/self/ns/mnt -> mnt:[4026532175] --\n-- proc/self/ns/net -> net:[4026532180] --\n",
			detected: true, fired: []string{"mnt_ns_not_initial", "net_ns_not_initial"},
			observed: map[string]string{"mnt_ns_not_initial": "(initial 4026531832: kernel 6.18.44-fc-v1147 ≥ 6.18 fixes it)"},
			contra:   []string{"but mnt_ns_not_initial, net_ns_not_initial fired"},
		},
		{
			name: "proot", archive: initialNS + hostNS + ext4Root + status(500) + "-- proc/500/comm --\nproot\n",
			detected: true, fired: []string{"proot_tracer"},
			observed: map[string]string{"proot_tracer": "TracerPid 500 (proot)"},
			contra:   []string{"but proot_tracer fired: an unmarked sandbox"},
		},
		{
			name: "strace on a bare host", archive: initialNS + hostNS + ext4Root + status(500) + "-- proc/500/comm --\nstrace\n",
			silent:   []string{"proot_tracer"},
			observed: map[string]string{"proot_tracer": "TracerPid 500 (strace)"},
		},
		{
			name: "nsenter -m into a container: foreign procfs", archive: "-- proc/1/comm --\nsleep\n",
			detected: true, fired: []string{"procfs_foreign"}, silent: []string{"procfs_missing"},
			observed: map[string]string{"procfs_missing": "absent, but /proc is mounted (it lists pid 1)",
				"procfs_foreign": "/proc lists pid 1 but not this process"},
			contra: []string{"but procfs_foreign fired"},
		},
		{
			name: "chroot without /proc", archive: "-- aorta-probe --\n",
			detected: true, fired: []string{"procfs_missing"}, silent: []string{"procfs_foreign"},
			contra: []string{"but procfs_missing fired"},
		},
		{
			name: "docker with every host namespace: overlay root corroborates the marker", archive: "-- .dockerenv --\n" + initialNS + hostNS + status(0) +
				"-- proc/self/mountinfo --\n500 400 0:50 / / rw - overlay overlay rw,lowerdir=/l\n",
			detected: true, fired: []string{"dockerenv", "root_mount_container_like"},
		},
		{
			name: "VM shipping /.dockerenv", archive: "-- .dockerenv --\n" + initialNS + hostNS + ext4Root + status(0),
			detected: true, fired: []string{"dockerenv"},
			contra: []string{"/.dockerenv present, yet no other signal fired"},
		},
		{
			name: "systemd-nspawn", archive: strings.Replace(initialNS, "pid:[4026531836]", "pid:[4026532178]", 1) +
				ext4Root + status(0) + hostNS + "-- run/host/container-manager --\nsystemd-nspawn\n",
			detected: true, fired: []string{"pid_ns_not_initial", "host_container_manager"},
			contra: []string{"but pid_ns_not_initial, host_container_manager fired: a container that announces itself through /run/host/container-manager, which the Python probe does not read"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testtree.Archive(t, "isolation case\n"+tt.archive)
			release := tt.release
			if release == "" {
				release = "6.8.0-49-generic"
			}
			opt := Options{Seams: machine.Seams{
				Env: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok },
				Uname: func() (machine.Uname, error) {
					return machine.Uname{Release: release, Version: "#1", Machine: "x86_64"}, nil
				},
			}}
			opt.Root, opt.Cwd = root, "/"
			s := &state{collector: newCollector(context.Background(), opt)}
			iso := collectContainerDetected(s)
			byName := map[string]schema.Signal{}
			var fired []string
			for _, sg := range iso.evidence.Signals {
				byName[sg.Name] = sg
				if sg.Fired {
					fired = append(fired, sg.Name)
				}
			}
			if iso.detected != tt.detected {
				t.Errorf("detected = %v, want %v; fired %v", iso.detected, tt.detected, fired)
			}
			if want := map[bool]string{true: "isolated", false: "no_signal"}[tt.detected]; iso.evidence.Verdict != want {
				t.Errorf("verdict %q, want %q", iso.evidence.Verdict, want)
			}
			for _, n := range tt.fired {
				if sg, ok := byName[n]; !ok || !sg.Fired {
					t.Errorf("%s did not fire (observed %s); fired %v", n, golden.OrNull(sg.Observed), fired)
				}
			}
			for _, n := range tt.silent {
				if sg, ok := byName[n]; !ok || sg.Fired {
					t.Errorf("%s fired or missing (observed %s)", n, golden.OrNull(sg.Observed))
				}
			}
			for n, want := range tt.observed {
				if got := golden.OrNull(byName[n].Observed); !strings.Contains(got, want) {
					t.Errorf("%s observed %q, want it to contain %q", n, got, want)
				}
			}
			got := iso.evidence.Contradictions
			if len(got) != len(tt.contra) {
				t.Fatalf("contradictions %q, want %d matching %q", got, len(tt.contra), tt.contra)
			}
			for i, want := range tt.contra {
				if !strings.Contains(got[i], want) {
					t.Errorf("contradiction %d = %q, want it to contain %q", i, got[i], want)
				}
			}
		})
	}
}

func TestKernelMajorMinor(t *testing.T) {
	tests := []struct {
		in   string
		want [2]int
		ok   bool
	}{
		{"6.18.44-fc-v1147", [2]int{6, 18}, true},
		{"6.8.0-49-generic", [2]int{6, 8}, true},
		{"7.0", [2]int{7, 0}, true},
		{"6.18-rc1", [2]int{6, 18}, true},
		{"6", [2]int{}, false},
		{"", [2]int{}, false},
		{"r", [2]int{}, false},
		{"x.18.1", [2]int{}, false},
		{"6.x", [2]int{}, false},
	}
	for _, tt := range tests {
		got, ok := kernelMajorMinor(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("kernelMajorMinor(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzKernelMajorMinor: never panics, and a parsed release starts with the
// numbers it returns.
func FuzzKernelMajorMinor(f *testing.F) {
	for _, s := range []string{"6.18.44-fc-v1147", "6.8.0-49-generic", "7.0", "", "6", "6.", ".18", "-1.-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, release string) {
		v, ok := kernelMajorMinor(release)
		if ok && !strings.HasPrefix(release, fmt.Sprintf("%d.", v[0])) && !strings.HasPrefix(release, fmt.Sprintf("+%d.", v[0])) &&
			!strings.HasPrefix(release, "0") && !strings.HasPrefix(release, "-") && !strings.HasPrefix(release, "+") {
			t.Errorf("kernelMajorMinor(%q) = %v", release, v)
		}
	})
}

// TestIsolationTable walks the signal table: names are unique, the Python probe
// rows come first and start with runtime_context.type's inputs in their
// order, and the roles contradictions relies on sit on the rows the docs
// name (docs/isolation.md).
func TestIsolationTable(t *testing.T) {
	seen := map[string]bool{}
	anchors := true
	roles := map[signalRole][]string{}
	for i, row := range isolationSignals {
		if seen[row.name] {
			t.Errorf("signal %s listed twice", row.name)
		}
		seen[row.name] = true
		if row.anchor && !anchors {
			t.Errorf("anchor signal %s after a non-anchor one", row.name)
		}
		anchors = anchors && row.anchor
		if i < len(runtimeRules) && row.name != runtimeRules[i].name {
			t.Errorf("row %d is %s, want the runtime rule %s", i, row.name, runtimeRules[i].name)
		}
		if row.anchor && row.corroborating {
			t.Errorf("anchor signal %s is corroborating: every anchor signal decides", row.name)
		}
		roles[row.role] = append(roles[row.role], row.name)
	}
	for role, want := range map[signalRole]string{
		roleMarker:       "dockerenv containerenv",
		roleSelfAnnounce: "pid1_container_env host_container_manager systemd_container",
		roleInitialNS:    "pid_ns_not_initial user_ns_not_initial cgroup_ns_not_initial uts_ns_not_initial ipc_ns_not_initial time_ns_not_initial",
	} {
		if got := strings.Join(roles[role], " "); got != want {
			t.Errorf("role %d: %s, want %s", role, got, want)
		}
	}
}

func TestNSInode(t *testing.T) {
	for _, tc := range []struct {
		link, kind string
		want       uint64
		ok         bool
	}{
		{"pid:[4026531836]", "pid", 4026531836, true},
		{"user:[4026532178]", "user", 4026532178, true},
		{"pid:[x]", "pid", 0, false},
		{"mnt:[1]", "pid", 0, false},
		{"pid:[12", "pid", 0, false},
	} {
		n, ok := nsInode(tc.link, tc.kind)
		if n != tc.want || ok != tc.ok {
			t.Errorf("nsInode(%q) = %d, %v", tc.link, n, ok)
		}
	}
}
