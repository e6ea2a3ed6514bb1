package probe

import (
	"aorta-probe/internal/pyfmt"

	"fmt"
	"strconv"
	"strings"

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

// collectContainerDetected is container_detected (context.md §4) widened
// with the signals the anchor misses. The anchor's signals come first and
// in its order; container_detected is true when any deciding signal
// fires, and every anchor signal decides, so it is true whenever the
// anchor's own test is. Every signal checked is recorded, fired or not,
// with what was observed and whether it decides. docs/isolation.md
// describes each.
func collectContainerDetected(s *state) isolation {
	var sigs []schema.Signal
	// Every signal decides (its firing alone sets container_detected)
	// except those named in corroborating, which can fire on a bare host.
	add := func(name, source string, observed *string, err error, fired, anchor bool) {
		sg := schema.Signal{Name: name, Source: source, Observed: observed, Fired: fired, Anchor: anchor,
			Deciding: !corroborating[name]}
		if err != nil {
			sg.Error = schema.Str(pyfmt.ExcStr(err))
		}
		sigs = append(sigs, sg)
	}
	present := func(p string) *string {
		if s.root.exists(p) {
			return schema.Str("present")
		}
		return schema.Str("absent")
	}
	fired := func(v *string) bool { return v != nil && *v == "present" }

	// The anchor: the runtime_context.type inputs, then the mount
	// namespace against PID 1, then the cgroup tokens.
	dockerenv := present("/.dockerenv")
	add("dockerenv", "/.dockerenv", dockerenv, nil, fired(dockerenv), true)
	containerenv := present("/run/.containerenv")
	add("containerenv", "/run/.containerenv", containerenv, nil, fired(containerenv), true)
	sing, singSet := s.env("SINGULARITY_NAME")
	add("singularity_name", "$SINGULARITY_NAME", envObserved(sing, singSet), nil, sing != "", true)
	if cg := s.root.readText("/proc/1/cgroup"); cg != nil {
		tok := ""
		for _, t := range []string{"singularity", "docker", "podman"} {
			if strings.Contains(*cg, t) {
				tok = t
				break
			}
		}
		add("pid1_cgroup_runtime", "/proc/1/cgroup", schema.Str(firstLine(*cg)), nil, tok != "", true)
	} else {
		_, err := s.root.readFile("/proc/1/cgroup", maxTextFile)
		add("pid1_cgroup_runtime", "/proc/1/cgroup", nil, err, false, true)
	}
	selfMnt, selfErr := s.root.readlink("/proc/self/ns/mnt")
	pid1Mnt, pid1Err := s.root.readlink("/proc/1/ns/mnt")
	switch {
	case selfErr != nil:
		add("mnt_ns_differs_from_pid1", "/proc/self/ns/mnt", nil, selfErr, false, true)
	case pid1Err != nil:
		add("mnt_ns_differs_from_pid1", "/proc/1/ns/mnt", nil, pid1Err, false, true)
	default:
		add("mnt_ns_differs_from_pid1", "/proc/self/ns/mnt, /proc/1/ns/mnt",
			schema.Str(selfMnt+" vs "+pid1Mnt), nil, selfMnt != "" && pid1Mnt != "" && selfMnt != pid1Mnt, true)
	}
	if cg := s.root.readText("/proc/self/cgroup"); cg != nil {
		obs := firstLine(*cg)
		for _, line := range strings.Split(*cg, "\n") {
			if len(cgroupTokens(line)) > 0 {
				obs = line
				break
			}
		}
		add("self_cgroup_runtime", "/proc/self/cgroup", schema.Str(obs), nil, len(cgroupTokens(*cg)) > 0, true)
	} else {
		_, err := s.root.readFile("/proc/self/cgroup", maxTextFile)
		add("self_cgroup_runtime", "/proc/self/cgroup", nil, err, false, true)
	}

	// Beyond the anchor.
	// /proc/self is absent both without a procfs (a chroot) and under a
	// procfs of another pid namespace, which does not list this process
	// (`nsenter -t CONTAINER -m`): /proc/1 tells them apart.
	procOK := s.root.isDir("/proc/self")
	foreignProc := !procOK && s.root.isDir("/proc/1")
	switch {
	case procOK:
		add("procfs_missing", "/proc/self", schema.Str("present"), nil, false, false)
		add("procfs_foreign", "/proc/self, /proc/1", schema.Str("/proc/self present"), nil, false, false)
	case foreignProc:
		add("procfs_missing", "/proc/self", schema.Str("absent, but /proc is mounted (it lists pid 1)"), nil, false, false)
		add("procfs_foreign", "/proc/self, /proc/1", schema.Str("/proc lists pid 1 but not this process: "+
			"the procfs of another pid namespace, as after nsenter -m into a container"), nil, true, false)
	default:
		add("procfs_missing", "/proc/self", schema.Str("absent"), nil, true, false)
		add("procfs_foreign", "/proc/self, /proc/1", schema.Str("no procfs on /proc"), nil, false, false)
	}
	for _, ns := range initialNamespaceInodes {
		p := "/proc/self/ns/" + ns.kind
		link, err := s.root.readlink(p)
		if err != nil {
			add(ns.kind+"_ns_not_initial", p, nil, err, false, false)
			continue
		}
		ino, ok := nsInode(link, ns.kind)
		add(ns.kind+"_ns_not_initial", p, schema.Str(fmt.Sprintf("%s (initial %d)", link, ns.inode)), nil, ok && ino != ns.inode, false)
	}
	fixedLinks := map[string]string{}
	fixedErrs := map[string]error{}
	for _, ns := range fixedInitialInodes {
		fixedLinks[ns.kind], fixedErrs[ns.kind] = s.root.readlink("/proc/self/ns/" + ns.kind)
	}
	fixedWhy, fixedKnown := fixedNumbering(s, fixedLinks)
	for _, ns := range fixedInitialInodes {
		p := "/proc/self/ns/" + ns.kind
		link, err := fixedLinks[ns.kind], fixedErrs[ns.kind]
		if err != nil {
			add(ns.kind+"_ns_not_initial", p, nil, err, false, false)
			continue
		}
		ino, ok := nsInode(link, ns.kind)
		switch {
		case ok && ino == ns.inode:
			add(ns.kind+"_ns_not_initial", p, schema.Str(fmt.Sprintf("%s (initial %d)", link, ns.inode)), nil, false, false)
		case fixedKnown:
			add(ns.kind+"_ns_not_initial", p, schema.Str(fmt.Sprintf("%s (initial %d: %s)", link, ns.inode, fixedWhy)), nil, ok, false)
		default:
			add(ns.kind+"_ns_not_initial", p, schema.Str(fmt.Sprintf("%s (not compared: %s)", link, fixedWhy)), nil, false, false)
		}
	}
	if b, err := s.root.readFile("/proc/self/uid_map", maxTextFile); err == nil {
		m := strings.Join(strings.Fields(string(b)), " ")
		add("user_ns_uid_map", "/proc/self/uid_map", schema.Str(m), nil, m != identityUIDMap, false)
	} else {
		add("user_ns_uid_map", "/proc/self/uid_map", nil, err, false, false)
	}
	st := procStatus{Has: map[string]bool{}}
	if b, err := s.root.readFile("/proc/self/status", maxTextFile); err == nil {
		st = parseProcStatus(string(b))
		add("nested_pid_ns", "/proc/self/status NSpid", schema.Str(joinInts(st.NSpid)), nil, len(st.NSpid) > 1, false)
		add("probe_is_pid1", "/proc/self/status Pid", schema.Str(strconv.Itoa(st.Pid)), nil, st.Has["Pid"] && st.Pid == 1, false)
		src, obs, err, fired := prootTracer(s, st)
		add("proot_tracer", src, obs, err, fired, false)
	} else {
		add("nested_pid_ns", "/proc/self/status NSpid", nil, err, false, false)
		add("probe_is_pid1", "/proc/self/status Pid", nil, err, false, false)
		add("proot_tracer", "/proc/self/status TracerPid", nil, err, false, false)
	}
	// The anchor compares with PID 1, whose links need ptrace rights; the
	// parent is usually readable and is outside an `unshare -m`-style
	// sandbox that was entered by exec.
	if st.Has["PPid"] && st.PPid > 0 && selfErr == nil {
		p := fmt.Sprintf("/proc/%d/ns/mnt", st.PPid)
		if parent, err := s.root.readlink(p); err == nil {
			add("mnt_ns_differs_from_parent", p, schema.Str(selfMnt+" vs "+parent), nil, parent != selfMnt, false)
		} else {
			add("mnt_ns_differs_from_parent", p, nil, err, false, false)
		}
	} else {
		add("mnt_ns_differs_from_parent", "/proc/self/status PPid", schema.Str("no parent visible"), nil, false, false)
	}
	// A launcher that enters the namespace and then starts a shell
	// (`unshare -m sh -c 'aorta-probe …'`) hides it from the parent test:
	// the parent is the shell, inside. The grandparent and older are not.
	if selfErr == nil {
		src, obs, err, differs := ancestorNamespace(s, st.PPid, "mnt", selfMnt, false)
		add("mnt_ns_differs_from_ancestor", src, obs, err, differs, false)
	} else {
		add("mnt_ns_differs_from_ancestor", "/proc/self/ns/mnt", nil, selfErr, false, false)
	}
	// The network namespace has no fixed initial inode either, and no
	// anchor signal: compare with the parent and every older ancestor
	// (`unshare -n`, bwrap --unshare-net, RE runners without network).
	if selfNet, err := s.root.readlink("/proc/self/ns/net"); err == nil {
		src, obs, err, differs := ancestorNamespace(s, st.PPid, "net", selfNet, true)
		add("net_ns_differs_from_ancestor", src, obs, err, differs, false)
	} else {
		add("net_ns_differs_from_ancestor", "/proc/self/ns/net", nil, err, false, false)
	}
	if procOK {
		if b, err := s.root.readFile("/proc/1/environ", 1<<20); err == nil {
			v := ""
			for _, kv := range strings.Split(string(b), "\x00") {
				if strings.HasPrefix(kv, "container=") {
					v = kv
				}
			}
			add("pid1_container_env", "/proc/1/environ container=", schema.Str(v), nil, v != "" && v != "container=", false)
		} else {
			add("pid1_container_env", "/proc/1/environ container=", nil, err, false, false)
		}
		if ms, err := s.root.readFile("/proc/self/mountinfo", 16<<20); err == nil {
			all := parseMountInfo(string(ms))
			m, ok := rootMount(all)
			obs := "no mount on /"
			// A readable, non-empty mount table without "/" is a chroot
			// into a directory (with /proc mounted inside): the kernel
			// hides mounts whose mount point lies outside the process
			// root, so the real root mount is not listed.
			unlisted := !ok && len(all) > 0
			overlay := false
			if ok {
				obs = fmt.Sprintf("%s %s (root %s)", m.FSType, m.Source, m.Root)
				switch m.FSType {
				case "overlay", "fuse-overlayfs", "aufs", "tmpfs":
					overlay = true
				}
				overlay = overlay || m.Root != "/"
			}
			add("root_mount_unlisted", "/proc/self/mountinfo", schema.Str(obs), nil, unlisted, false)
			add("root_mount_container_like", "/proc/self/mountinfo", schema.Str(obs), nil, overlay, false)
		} else {
			add("root_mount_unlisted", "/proc/self/mountinfo", nil, err, false, false)
			add("root_mount_container_like", "/proc/self/mountinfo", nil, err, false, false)
		}
	}
	for _, m := range []struct{ name, path string }{
		{"host_container_manager", "/run/host/container-manager"},
		{"systemd_container", "/run/systemd/container"},
	} {
		obs := s.root.readText(m.path)
		if obs == nil {
			obs = present(m.path)
		}
		add(m.name, m.path, obs, nil, s.root.exists(m.path), false)
	}
	k8s, k8sSet := s.env("KUBERNETES_SERVICE_HOST")
	add("kubernetes_service_env", "$KUBERNETES_SERVICE_HOST", envObserved(k8s, k8sSet), nil, k8s != "", false)

	iso := isolation{evidence: schema.Isolation{Verdict: "no_signal", Signals: sigs, Contradictions: []string{}}}
	for _, sg := range sigs {
		if sg.Fired && sg.Deciding {
			iso.detected = true
		}
	}
	if iso.detected {
		iso.evidence.Verdict = "isolated"
	}
	iso.evidence.Contradictions = contradictions(sigs)
	return iso
}

// corroborating names the signals that can fire on a bare host: a
// variable any shell can export, and root filesystems that diskless, live
// and btrfs-subvolume hosts share with containers. They never decide
// container_detected alone (docs/isolation.md, "Deciding and
// corroborating").
var corroborating = map[string]bool{
	"root_mount_container_like": true,
	"kubernetes_service_env":    true,
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
func prootTracer(s *state, st procStatus) (source string, observed *string, err error, fired bool) {
	if !st.Has["TracerPid"] {
		return "/proc/self/status TracerPid", schema.Str("no TracerPid line"), nil, false
	}
	if st.TracerPid == 0 {
		return "/proc/self/status TracerPid", schema.Str("0 (not traced)"), nil, false
	}
	p := fmt.Sprintf("/proc/%d/comm", st.TracerPid)
	b, err := s.root.readFile(p, maxTextFile)
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
// fromParent; for the mount namespace the anchor compares it), at a loop,
// after maxAncestors, or at the first unreadable link or status, whose
// error it reports. Source: /proc/<pid>/status (PPid) and
// /proc/<pid>/ns/<kind> of each ancestor.
func ancestorNamespace(s *state, ppid int, kind, self string, fromParent bool) (source string, observed *string, err error, differs bool) {
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
			link, err := s.root.readlink(nsPath)
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
		b, err := s.root.readFile(stPath, maxTextFile)
		if err != nil {
			return stPath, nil, err, false
		}
		st := parseProcStatus(string(b))
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
func contradictions(sigs []schema.Signal) []string {
	byName := map[string]schema.Signal{}
	var markers, others, anchorsFired, deciding, corroborated, selfMarked []string
	for _, sg := range sigs {
		byName[sg.Name] = sg
		if !sg.Fired {
			continue
		}
		switch {
		case sg.Name == "dockerenv" || sg.Name == "containerenv":
			markers = append(markers, sg.Source)
			anchorsFired = append(anchorsFired, sg.Name)
			continue
		case sg.Anchor:
			anchorsFired = append(anchorsFired, sg.Name)
		case sg.Deciding:
			deciding = append(deciding, sg.Name)
		default:
			corroborated = append(corroborated, sg.Name)
		}
		others = append(others, sg.Name)
		switch sg.Name {
		case "pid1_container_env", "host_container_manager", "systemd_container":
			selfMarked = append(selfMarked, sg.Source)
		}
	}
	out := []string{}
	// A marker file and nothing else: every other signal, namespaces,
	// root mount and ancestors included, is silent.
	readable := 0
	for _, ns := range initialNamespaceInodes {
		if byName[ns.kind+"_ns_not_initial"].Observed != nil {
			readable++
		}
	}
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
