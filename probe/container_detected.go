package probe

import (
	"fmt"
	"strconv"
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// initialNamespaceInodes are the inode numbers the kernel gives its initial
// namespaces (include/linux/proc_ns.h: PROC_*_INIT_INO). A process whose
// namespace link shows another number is in a namespace someone created.
// The mount and network namespaces have no fixed number on older kernels,
// so they are compared with other processes instead.
var initialNamespaceInodes = []struct {
	kind  string
	inode uint64
}{
	{"pid", 4026531836},
	{"user", 4026531837},
	{"cgroup", 4026531835},
	{"uts", 4026531838},
	{"ipc", 4026531839},
	{"time", 4026531834},
}

// fixedInitialInodes are the numbers of the initial mount and network
// namespaces on kernels that fix them (include/uapi/linux/nsfs.h:
// MNT_NS_INIT_INO, NET_NS_INIT_INO; Linux 6.18 has them). Older kernels
// give both a dynamic number (≥ 0xF0000000, never one of these), so a
// mismatch means something only when the kernel is known to number them
// this way (fixedNumbering).
var fixedInitialInodes = []struct {
	kind  string
	inode uint64
}{
	{"mnt", 0xEFFFFFF8},
	{"net", 0xEFFFFFF9},
}

// fixedNumberingSince is the first kernel release known to give the
// initial mount and network namespaces their fixed numbers (this
// project's CI kernel, 6.18, shows them; docs/isolation.md).
var fixedNumberingSince = [2]int{6, 18}

// identityUIDMap is /proc/self/uid_map in the initial user namespace.
const identityUIDMap = "0 0 4294967295"

// isolation is the container_detected block plus the evidence behind it.
type isolation struct {
	detected bool
	evidence schema.Isolation
}

// collectContainerDetected is container_detected
// (docs/isolation.md#the-signals) widened with the signals the Python probe misses:
// every row of isolationSignals, in order, checked and recorded, fired or
// not, with what was observed and whether it decides. The Python probe's signals
// come first and in its order; container_detected is true when any deciding
// signal fires, and every anchor signal (one the Python probe checks:
// docs/isolation.md) decides, so it is true whenever the Python probe's
// own test is. docs/isolation.md describes each.
func collectContainerDetected(s *state) isolation {
	in := &isoInputs{s: s}
	var found []foundSignal
	for i := range isolationSignals {
		row := &isolationSignals[i]
		if row.when != nil && !row.when(in) {
			continue
		}
		f := row.check(in)
		sg := schema.Signal{Name: row.name, Source: f.source, Observed: f.observed, Fired: f.fired,
			Anchor: row.anchor, Deciding: !row.corroborating}
		if f.err != nil {
			sg.Error = schema.Str(pyfmt.ExcStr(f.err))
		}
		found = append(found, foundSignal{row, sg})
	}
	iso := isolation{evidence: schema.Isolation{Verdict: "no_signal", Signals: make([]schema.Signal, len(found))}}
	for i, f := range found {
		iso.evidence.Signals[i] = f.Signal
		iso.detected = iso.detected || f.Fired && f.Deciding
	}
	if iso.detected {
		iso.evidence.Verdict = "isolated"
	}
	iso.evidence.Contradictions = contradictions(found)
	return iso
}

// finding is what one isolation signal's check saw: its source, what it
// observed (nil when unreadable), the read error, and whether it fired.
type finding struct {
	source   string
	observed *string
	err      error
	fired    bool
}

// signalRole is what contradictions needs to know of a signal beyond
// fired, anchor and deciding.
type signalRole int

const (
	roleNone signalRole = iota
	// roleMarker: a runtime's marker file (/.dockerenv, /run/.containerenv).
	roleMarker
	// roleSelfAnnounce: a container announcing itself in a place the
	// Python probe does not read.
	roleSelfAnnounce
	// roleInitialNS: a namespace with a fixed initial inode number.
	roleInitialNS
)

// isoSignal is one row of the isolation table.
type isoSignal struct {
	name string
	// anchor: one of the Python probe's own signals.
	anchor bool
	// corroborating: can fire on a bare host, so it never decides
	// container_detected alone (docs/isolation.md, "Deciding and
	// corroborating"); every other signal decides.
	corroborating bool
	role          signalRole
	// when, if set, says whether the signal is checked (and recorded) at all.
	when  func(*isoInputs) bool
	check func(*isoInputs) finding
}

// foundSignal is a row with what its check found.
type foundSignal struct {
	row *isoSignal
	schema.Signal
}

// isoInputs holds what several signals read, each read once, when the
// first signal that needs it is checked (so the reads keep the table's
// order).
type isoInputs struct {
	s                *state
	selfMnt          string
	selfErr          error
	selfRead         bool
	procOK, procRead bool
	foreignProc      bool
	status           *source.ProcStatus
	statusErr        error
	fixed            *fixedNS
	mounts           *mountView
	// ancestors are the /proc/<pid>/status files the ancestor walks read,
	// by pid: the mnt and net walks climb the same chain.
	ancestors map[int]ancestorStatus
}

type ancestorStatus struct {
	st  source.ProcStatus
	err error
}

// ancestorStatus is /proc/<pid>/status of an ancestor, read once.
func (in *isoInputs) ancestorStatus(pid int) (source.ProcStatus, error) {
	if a, ok := in.ancestors[pid]; ok {
		return a.st, a.err
	}
	var a ancestorStatus
	st, err := source.NewFS(in.s.root).ProcStatus(strconv.Itoa(pid))
	if err != nil {
		a.err = source.Cause(err)
	} else {
		a.st = st
	}
	if in.ancestors == nil {
		in.ancestors = map[int]ancestorStatus{}
	}
	in.ancestors[pid] = a
	return a.st, a.err
}

func (in *isoInputs) self() (string, error) {
	if !in.selfRead {
		in.selfMnt, in.selfErr = in.s.root.Readlink("/proc/self/ns/mnt")
		in.selfRead = true
	}
	return in.selfMnt, in.selfErr
}

// proc says whether /proc/self is there and, when it is not, whether /proc
// is the procfs of another pid namespace: /proc/self is absent both
// without a procfs (a chroot) and under a procfs that does not list this
// process (`nsenter -t CONTAINER -m`); /proc/1 tells them apart.
func (in *isoInputs) proc() (ok, foreign bool) {
	if !in.procRead {
		in.procOK, in.procRead = in.s.root.IsDir("/proc/self"), true
		in.foreignProc = !in.procOK && in.s.root.IsDir("/proc/1")
	}
	return in.procOK, in.foreignProc
}

// procStatus is /proc/self/status, read once; an unreadable one reads
// empty, with the read's error.
func (in *isoInputs) procStatus() (source.ProcStatus, error) {
	if in.status == nil {
		st, err := source.NewFS(in.s.root).ProcStatus("self")
		in.status, in.statusErr = &st, source.Cause(err)
	}
	return *in.status, in.statusErr
}

// mountView is the root mount (readMountView), read once.
func (in *isoInputs) mountView() *mountView {
	if in.mounts == nil {
		in.mounts = readMountView(in.s.root)
	}
	return in.mounts
}

// fixedNS is the mount and network namespace links and whether this kernel
// numbers their initial namespaces (fixedNumbering).
type fixedNS struct {
	links map[string]string
	errs  map[string]error
	why   string
	known bool
}

func (in *isoInputs) fixedNS() *fixedNS {
	if in.fixed == nil {
		f := &fixedNS{links: map[string]string{}, errs: map[string]error{}}
		for _, ns := range fixedInitialInodes {
			f.links[ns.kind], f.errs[ns.kind] = in.s.root.Readlink("/proc/self/ns/" + ns.kind)
		}
		f.why, f.known = fixedNumbering(in.s, f.links)
		in.fixed = f
	}
	return in.fixed
}

func (in *isoInputs) present(p string) *string {
	if in.s.root.Exists(p) {
		return schema.Str("present")
	}
	return schema.Str("absent")
}

// runtimeRule is one input of runtime_context.type, in the Python probe's order:
// the first that fires names the runtime. The same rows are the first
// anchor signals of container_detected (detectRuntimeType, isolationSignals).
type runtimeRule struct {
	name string
	role signalRole
	// check says what the signal saw and, when it fired, the runtime.
	check func(*state) (finding, string)
}

// runtimeRules are runtime_context.type's inputs (docs/isolation.md): the
// marker files, $SINGULARITY_NAME, then the /proc/1/cgroup tokens.
var runtimeRules = []runtimeRule{
	{"dockerenv", roleMarker, markerRule("/.dockerenv", "docker")},
	{"containerenv", roleMarker, markerRule("/run/.containerenv", "podman")},
	{"singularity_name", roleNone, func(s *state) (finding, string) {
		v, set := s.env("SINGULARITY_NAME")
		return finding{source: "$SINGULARITY_NAME", observed: envObserved(v, set), fired: v != ""}, "singularity"
	}},
	{"pid1_cgroup_runtime", roleNone, func(s *state) (finding, string) {
		const p = "/proc/1/cgroup"
		cg := s.root.ReadText(p)
		if cg == nil {
			_, err := s.root.ReadFile(p, machine.MaxTextFile)
			return finding{source: p, err: err}, ""
		}
		for _, tok := range []string{"singularity", "docker", "podman"} {
			if strings.Contains(*cg, tok) {
				return finding{source: p, observed: schema.Str(firstLine(*cg)), fired: true}, tok
			}
		}
		return finding{source: p, observed: schema.Str(firstLine(*cg))}, ""
	}},
}

func markerRule(path, runtime string) func(*state) (finding, string) {
	return func(s *state) (finding, string) {
		f := finding{source: path, observed: schema.Str("absent")}
		if s.root.Exists(path) {
			f.observed, f.fired = schema.Str("present"), true
		}
		return f, runtime
	}
}

// isolationSignals is the table collectContainerDetected walks, in the
// order the signals are recorded (docs/isolation.md describes each).
var isolationSignals = buildIsolationSignals()

func buildIsolationSignals() []isoSignal {
	var t []isoSignal
	// The anchor: the runtime_context.type inputs, then the mount
	// namespace against PID 1, then the cgroup tokens.
	for _, r := range runtimeRules {
		t = append(t, isoSignal{name: r.name, anchor: true, role: r.role,
			check: func(in *isoInputs) finding { f, _ := r.check(in.s); return f }})
	}
	t = append(t,
		isoSignal{name: "mnt_ns_differs_from_pid1", anchor: true, check: mntDiffersFromPID1},
		isoSignal{name: "self_cgroup_runtime", anchor: true, check: selfCgroupRuntime},
		// Beyond the Python probe.
		isoSignal{name: "procfs_missing", check: procfsMissing},
		isoSignal{name: "procfs_foreign", check: procfsForeign},
	)
	for _, ns := range initialNamespaceInodes {
		t = append(t, isoSignal{name: ns.kind + "_ns_not_initial", role: roleInitialNS,
			check: func(in *isoInputs) finding { return initialNamespace(in, ns.kind, ns.inode) }})
	}
	for _, ns := range fixedInitialInodes {
		t = append(t, isoSignal{name: ns.kind + "_ns_not_initial",
			check: func(in *isoInputs) finding { return fixedNamespace(in, ns.kind, ns.inode) }})
	}
	procOK := func(in *isoInputs) bool { ok, _ := in.proc(); return ok }
	return append(t,
		isoSignal{name: "user_ns_uid_map", check: uidMap},
		isoSignal{name: "nested_pid_ns", check: statusSignal("NSpid", func(_ *isoInputs, st source.ProcStatus) finding {
			return finding{observed: schema.Str(joinInts(st.NSpid)), fired: len(st.NSpid) > 1}
		})},
		isoSignal{name: "probe_is_pid1", check: statusSignal("Pid", func(_ *isoInputs, st source.ProcStatus) finding {
			return finding{observed: schema.Str(strconv.Itoa(st.Pid)), fired: st.Has["Pid"] && st.Pid == 1}
		})},
		isoSignal{name: "proot_tracer", check: statusSignal("TracerPid", func(in *isoInputs, st source.ProcStatus) finding {
			src, obs, err, fired := prootTracer(in.s, st)
			return finding{src, obs, err, fired}
		})},
		isoSignal{name: "mnt_ns_differs_from_parent", check: mntDiffersFromParent},
		isoSignal{name: "mnt_ns_differs_from_ancestor", check: mntDiffersFromAncestor},
		isoSignal{name: "net_ns_differs_from_ancestor", check: netDiffersFromAncestor},
		isoSignal{name: "pid1_container_env", role: roleSelfAnnounce, when: procOK, check: pid1ContainerEnv},
		isoSignal{name: "root_mount_unlisted", when: procOK, check: func(in *isoInputs) finding {
			m := in.mountView()
			return finding{"/proc/self/mountinfo", m.obs, m.err, m.unlisted}
		}},
		isoSignal{name: "root_mount_container_like", corroborating: true, when: procOK, check: func(in *isoInputs) finding {
			m := in.mountView()
			return finding{"/proc/self/mountinfo", m.obs, m.err, m.containerLike}
		}},
		isoSignal{name: "host_container_manager", role: roleSelfAnnounce, check: announceFile("/run/host/container-manager")},
		isoSignal{name: "systemd_container", role: roleSelfAnnounce, check: announceFile("/run/systemd/container")},
		isoSignal{name: "kubernetes_service_env", corroborating: true, check: func(in *isoInputs) finding {
			v, set := in.s.env("KUBERNETES_SERVICE_HOST")
			return finding{source: "$KUBERNETES_SERVICE_HOST", observed: envObserved(v, set), fired: v != ""}
		}},
	)
}

func mntDiffersFromPID1(in *isoInputs) finding {
	self, selfErr := in.self()
	pid1, pid1Err := in.s.root.Readlink("/proc/1/ns/mnt")
	switch {
	case selfErr != nil:
		return finding{source: "/proc/self/ns/mnt", err: selfErr}
	case pid1Err != nil:
		return finding{source: "/proc/1/ns/mnt", err: pid1Err}
	}
	return finding{source: "/proc/self/ns/mnt, /proc/1/ns/mnt", observed: schema.Str(self + " vs " + pid1),
		fired: self != "" && pid1 != "" && self != pid1}
}

func selfCgroupRuntime(in *isoInputs) finding {
	const p = "/proc/self/cgroup"
	cg := in.s.root.ReadText(p)
	if cg == nil {
		_, err := in.s.root.ReadFile(p, machine.MaxTextFile)
		return finding{source: p, err: err}
	}
	obs := firstLine(*cg)
	for _, line := range strings.Split(*cg, "\n") {
		if len(source.CgroupTokens(line)) > 0 {
			obs = line
			break
		}
	}
	return finding{source: p, observed: schema.Str(obs), fired: len(source.CgroupTokens(*cg)) > 0}
}

// procfsMissing and procfsForeign tell a chroot without a procfs from the
// procfs of another pid namespace (isoInputs.proc).
func procfsMissing(in *isoInputs) finding {
	const p = "/proc/self"
	switch ok, foreign := in.proc(); {
	case ok:
		return finding{source: p, observed: schema.Str("present")}
	case foreign:
		return finding{source: p, observed: schema.Str("absent, but /proc is mounted (it lists pid 1)")}
	}
	return finding{source: p, observed: schema.Str("absent"), fired: true}
}

func procfsForeign(in *isoInputs) finding {
	const p = "/proc/self, /proc/1"
	switch ok, foreign := in.proc(); {
	case ok:
		return finding{source: p, observed: schema.Str("/proc/self present")}
	case foreign:
		return finding{source: p, observed: schema.Str("/proc lists pid 1 but not this process: " +
			"the procfs of another pid namespace, as after nsenter -m into a container"), fired: true}
	}
	return finding{source: p, observed: schema.Str("no procfs on /proc")}
}

func initialNamespace(in *isoInputs, kind string, initial uint64) finding {
	p := "/proc/self/ns/" + kind
	link, err := in.s.root.Readlink(p)
	if err != nil {
		return finding{source: p, err: err}
	}
	ino, ok := nsInode(link, kind)
	return finding{source: p, observed: schema.Str(fmt.Sprintf("%s (initial %d)", link, initial)), fired: ok && ino != initial}
}

func fixedNamespace(in *isoInputs, kind string, initial uint64) finding {
	p := "/proc/self/ns/" + kind
	f := in.fixedNS()
	link, err := f.links[kind], f.errs[kind]
	if err != nil {
		return finding{source: p, err: err}
	}
	ino, ok := nsInode(link, kind)
	switch {
	case ok && ino == initial:
		return finding{source: p, observed: schema.Str(fmt.Sprintf("%s (initial %d)", link, initial))}
	case f.known:
		return finding{source: p, observed: schema.Str(fmt.Sprintf("%s (initial %d: %s)", link, initial, f.why)), fired: ok}
	}
	return finding{source: p, observed: schema.Str(fmt.Sprintf("%s (not compared: %s)", link, f.why))}
}

func uidMap(in *isoInputs) finding {
	const p = "/proc/self/uid_map"
	b, err := in.s.root.ReadFile(p, machine.MaxTextFile)
	if err != nil {
		return finding{source: p, err: err}
	}
	m := strings.Join(strings.Fields(string(b)), " ")
	return finding{source: p, observed: schema.Str(m), fired: m != identityUIDMap}
}

// statusSignal is a signal read from the /proc/self/status line named
// field; an unreadable status is its error.
func statusSignal(field string, check func(*isoInputs, source.ProcStatus) finding) func(*isoInputs) finding {
	return func(in *isoInputs) finding {
		st, err := in.procStatus()
		if err != nil {
			return finding{source: "/proc/self/status " + field, err: err}
		}
		f := check(in, st)
		if f.source == "" {
			f.source = "/proc/self/status " + field
		}
		return f
	}
}

// mntDiffersFromParent: the Python probe compares with PID 1, whose links need
// ptrace rights; the parent is usually readable and is outside an
// `unshare -m`-style sandbox that was entered by exec.
func mntDiffersFromParent(in *isoInputs) finding {
	st, _ := in.procStatus()
	self, selfErr := in.self()
	if !st.Has["PPid"] || st.PPid <= 0 || selfErr != nil {
		return finding{source: "/proc/self/status PPid", observed: schema.Str("no parent visible")}
	}
	p := fmt.Sprintf("/proc/%d/ns/mnt", st.PPid)
	parent, err := in.s.root.Readlink(p)
	if err != nil {
		return finding{source: p, err: err}
	}
	return finding{source: p, observed: schema.Str(self + " vs " + parent), fired: parent != self}
}

// mntDiffersFromAncestor: a launcher that enters the namespace and then
// starts a shell (`unshare -m sh -c 'aorta-probe …'`) hides it from the
// parent test: the parent is the shell, inside. The grandparent and older
// are not.
func mntDiffersFromAncestor(in *isoInputs) finding {
	self, err := in.self()
	if err != nil {
		return finding{source: "/proc/self/ns/mnt", err: err}
	}
	st, _ := in.procStatus()
	src, obs, err, differs := ancestorNamespace(in, st.PPid, "mnt", self, false)
	return finding{src, obs, err, differs}
}

// netDiffersFromAncestor: the network namespace has no fixed initial
// inode on older kernels either, and no anchor signal: compare with the
// parent and every older ancestor (`unshare -n`, bwrap --unshare-net, RE
// runners without network).
func netDiffersFromAncestor(in *isoInputs) finding {
	self, err := in.s.root.Readlink("/proc/self/ns/net")
	if err != nil {
		return finding{source: "/proc/self/ns/net", err: err}
	}
	st, _ := in.procStatus()
	src, obs, err, differs := ancestorNamespace(in, st.PPid, "net", self, true)
	return finding{src, obs, err, differs}
}

func pid1ContainerEnv(in *isoInputs) finding {
	const src = "/proc/1/environ container="
	b, err := in.s.root.ReadFile("/proc/1/environ", 1<<20)
	if err != nil {
		return finding{source: src, err: err}
	}
	v := ""
	for _, kv := range strings.Split(string(b), "\x00") {
		if strings.HasPrefix(kv, "container=") {
			v = kv
		}
	}
	return finding{source: src, observed: schema.Str(v), fired: v != "" && v != "container="}
}

// announceFile is a file a container manager writes to say what it is:
// its text when readable, else present or absent.
func announceFile(path string) func(*isoInputs) finding {
	return func(in *isoInputs) finding {
		obs := in.s.root.ReadText(path)
		if obs == nil {
			obs = in.present(path)
		}
		return finding{source: path, observed: obs, fired: in.s.root.Exists(path)}
	}
}

// fixedNumbering says whether this kernel gives the initial mount and
// network namespaces their fixed numbers, and why: one of this process's
// own links shows a fixed number (which the kernel never hands out
// dynamically), or the kernel release is one that has them. Sources:
// /proc/self/ns/mnt and /proc/self/ns/net (links), uname(2) release.
func fixedNumbering(s *state, links map[string]string) (why string, known bool) {
	for _, ns := range fixedInitialInodes {
		if ino, ok := nsInode(links[ns.kind], ns.kind); ok && ino == ns.inode {
			return fmt.Sprintf("this kernel numbers initial namespaces so, as %s shows", links[ns.kind]), true
		}
	}
	u, err := s.opt.Uname()
	if err != nil {
		return fmt.Sprintf("unknown whether this kernel fixes it (no own link shows a fixed number; uname failed: %s)", pyfmt.ExcStr(err)), false
	}
	if v, ok := kernelMajorMinor(u.Release); ok && (v[0] > fixedNumberingSince[0] ||
		v[0] == fixedNumberingSince[0] && v[1] >= fixedNumberingSince[1]) {
		return fmt.Sprintf("kernel %s ≥ %d.%d fixes it", u.Release, fixedNumberingSince[0], fixedNumberingSince[1]), true
	}
	return fmt.Sprintf("kernel %s is not known to fix the initial number (%d.%d and later do) and no own link shows one",
		u.Release, fixedNumberingSince[0], fixedNumberingSince[1]), false
}

// kernelMajorMinor parses "6.18.44-fc-v1147" into {6, 18}.
func kernelMajorMinor(release string) ([2]int, bool) {
	fields := strings.SplitN(release, ".", 3)
	if len(fields) < 2 {
		return [2]int{}, false
	}
	major, err1 := strconv.Atoi(fields[0])
	minor := fields[1]
	if i := strings.IndexFunc(minor, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = minor[:i]
	}
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return [2]int{}, false
	}
	return [2]int{major, mi}, true
}

// prootTracer is the proot check systemd-detect-virt makes: a non-zero
// TracerPid whose comm starts with "proot" (a ptrace-based fake root, no
// namespaces). Any other tracer (strace, gdb) is recorded but does not
// fire: a debugger on a bare host is no sandbox. Source:
// /proc/self/status TracerPid, /proc/<TracerPid>/comm.
func prootTracer(s *state, st source.ProcStatus) (source string, observed *string, err error, fired bool) {
	if !st.Has["TracerPid"] {
		return "/proc/self/status TracerPid", schema.Str("no TracerPid line"), nil, false
	}
	if st.TracerPid == 0 {
		return "/proc/self/status TracerPid", schema.Str("0 (not traced)"), nil, false
	}
	p := fmt.Sprintf("/proc/%d/comm", st.TracerPid)
	b, err := s.root.ReadFile(p, machine.MaxTextFile)
	if err != nil {
		return p, schema.Str(fmt.Sprintf("TracerPid %d, comm unreadable", st.TracerPid)), err, false
	}
	comm := strings.TrimSpace(string(b))
	return "/proc/self/status TracerPid, " + p, schema.Str(fmt.Sprintf("TracerPid %d (%s)", st.TracerPid, comm)), nil,
		strings.HasPrefix(comm, "proot")
}

// maxAncestors bounds the walk up the parent chain (a loop in a fake or
// racing /proc must not hang the probe).
const maxAncestors = 64

// ancestorNamespace walks the probe's parent chain and reports the first
// ancestor whose /proc/<pid>/ns/<kind> link differs from self. The walk
// starts at the parent when fromParent is set, else at the grandparent (the
// parent has its own signal); it ends at PID 1 (compared only when
// fromParent; for the mount namespace the Python probe compares it), at a loop,
// after maxAncestors, or at the first unreadable link or status, whose
// error it reports. Source: /proc/<pid>/status (PPid) and
// /proc/<pid>/ns/<kind> of each ancestor.
func ancestorNamespace(in *isoInputs, ppid int, kind, self string, fromParent bool) (source string, observed *string, err error, differs bool) {
	what := "ancestors"
	if !fromParent {
		what = "ancestors above the parent"
	}
	if ppid <= 0 || (!fromParent && ppid == 1) {
		if fromParent {
			return "/proc/self/status PPid", schema.Str("no parent visible"), nil, false
		}
		return "/proc/self/status PPid", schema.Str("no ancestor beyond the parent"), nil, false
	}
	pid, seen, compared := ppid, map[int]bool{}, 0
	for depth := 1; depth <= maxAncestors; depth++ {
		if depth > 1 || fromParent {
			nsPath := fmt.Sprintf("/proc/%d/ns/%s", pid, kind)
			link, err := in.s.root.Readlink(nsPath)
			if err != nil {
				return nsPath, nil, err, false
			}
			compared++
			if link != self {
				return nsPath, schema.Str(fmt.Sprintf("%s vs %s (pid %d, %d levels up)", self, link, pid, depth)), nil, true
			}
		}
		if pid == 1 {
			return fmt.Sprintf("/proc/1/ns/%s", kind), schema.Str(fmt.Sprintf("%d %s share %s", compared, what, self)), nil, false
		}
		seen[pid] = true
		stPath := fmt.Sprintf("/proc/%d/status", pid)
		st, err := in.ancestorStatus(pid)
		if err != nil {
			return stPath, nil, err, false
		}
		next := st.PPid
		if !st.Has["PPid"] || next <= 0 || (next == 1 && !fromParent) || seen[next] {
			return stPath, schema.Str(fmt.Sprintf("%d %s share %s", compared, what, self)), nil, false
		}
		pid = next
	}
	return fmt.Sprintf("/proc/%d/status", pid), schema.Str(fmt.Sprintf("walk stopped after %d %s sharing %s", compared, what, self)), nil, false
}

// contradictions names the signal combinations that do not tell one
// story, each gated on the whole evidence (docs/isolation.md).
func contradictions(found []foundSignal) []string {
	var markers, others, anchorsFired, deciding, corroborated, selfMarked []string
	readable := 0 // namespaces with a fixed initial number whose link was read
	for _, f := range found {
		if f.row.role == roleInitialNS && f.Observed != nil {
			readable++
		}
		if !f.Fired {
			continue
		}
		switch {
		case f.row.role == roleMarker:
			markers = append(markers, f.Source)
			anchorsFired = append(anchorsFired, f.Name)
			continue
		case f.Anchor:
			anchorsFired = append(anchorsFired, f.Name)
		case f.Deciding:
			deciding = append(deciding, f.Name)
		default:
			corroborated = append(corroborated, f.Name)
		}
		others = append(others, f.Name)
		if f.row.role == roleSelfAnnounce {
			selfMarked = append(selfMarked, f.Source)
		}
	}
	out := []string{}
	// A marker file and nothing else: every other signal, namespaces,
	// root mount and ancestors included, is silent.
	if len(markers) > 0 && len(others) == 0 && readable > 0 {
		out = append(out, fmt.Sprintf("%s present, yet no other signal fired (every readable namespace is the kernel's initial one, "+
			"no ancestor is in another namespace, the root mount is an ordinary filesystem): "+
			"the marker may be baked into the image, or this is a VM or host that ships it; runtime_context.type follows the marker",
			strings.Join(markers, " and ")))
	}
	if len(anchorsFired) == 0 && len(deciding) > 0 {
		what := "an unmarked sandbox such as bubblewrap, unshare, a chroot, proot or a remote-execution runner"
		if len(selfMarked) > 0 {
			what = fmt.Sprintf("a container that announces itself through %s, which the Python probe does not read (systemd-nspawn, LXC)",
				strings.Join(selfMarked, " and "))
		}
		also := ""
		if len(corroborated) > 0 {
			also = fmt.Sprintf(" (corroborated by %s)", strings.Join(corroborated, ", "))
		}
		out = append(out, fmt.Sprintf("the Python probe's signals are all silent (it would report container_detected=false), "+
			"but %s fired%s: %s", strings.Join(deciding, ", "), also, what))
	}
	if len(anchorsFired) == 0 && len(deciding) == 0 && len(corroborated) > 0 {
		out = append(out, fmt.Sprintf("only corroborating signals fired (%s): each can be true on a bare host "+
			"($KUBERNETES_SERVICE_HOST exported in a shell; a diskless, live or btrfs-subvolume root), so container_detected stays false",
			strings.Join(corroborated, ", ")))
	}
	return out
}

// nsInode parses "kind:[N]", the target of a /proc/<pid>/ns/<kind> link.
func nsInode(link, kind string) (uint64, bool) {
	rest, ok := strings.CutPrefix(link, kind+":[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64)
	return n, err == nil
}

func envObserved(v string, set bool) *string {
	if !set {
		return schema.Str("unset")
	}
	return schema.Str(v)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " ")
}

// mountView is the root mount as /proc/self/mountinfo lists it.
type mountView struct {
	obs                     *string
	err                     error
	unlisted, containerLike bool
}

// readMountView reads /proc/self/mountinfo of root and finds the root
// mount in it.
func readMountView(root *machine.FS) *mountView {
	v := &mountView{}
	all, err := source.NewFS(root).SelfMountInfo()
	if err != nil {
		v.err = source.Cause(err)
		return v
	}
	m, ok := source.RootMount(all)
	obs := "no mount on /"
	// A readable, non-empty mount table without "/" is a chroot into a
	// directory (with /proc mounted inside): the kernel hides mounts whose
	// mount point lies outside the process root, so the real root mount
	// is not listed.
	v.unlisted = !ok && len(all) > 0
	if ok {
		obs = fmt.Sprintf("%s %s (root %s)", m.FSType, m.Source, m.Root)
		switch m.FSType {
		case "overlay", "fuse-overlayfs", "aufs", "tmpfs":
			v.containerLike = true
		}
		v.containerLike = v.containerLike || m.Root != "/"
	}
	v.obs = schema.Str(obs)
	return v
}
