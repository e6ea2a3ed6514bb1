package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/internal/sandbox"
)

// requireSandboxes is the variable .ci/run sets: with it, every sandbox
// case that would skip (tool missing, not root, sandbox refused) fails.
const requireSandboxes = "AORTA_PROBE_REQUIRE_SANDBOXES"

// skipOrFail skips with msg, or fails with the same msg when
// AORTA_PROBE_REQUIRE_SANDBOXES=1.
func skipOrFail(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv(requireSandboxes) == "1" {
		t.Fatalf("%s", msg)
	}
	t.Skip(msg)
}

// sandboxCase is what one sandbox run must show, besides what every
// isolated run must show (container_detected true, verdict "isolated").
type sandboxCase struct {
	key string
	// signals must fire.
	signals []string
	// signalsFor, when set, computes signals from the host instead (what
	// can see the case depends on the kernel and on PID 1's links); a
	// non-empty skip says no signal can see it on this machine.
	signalsFor func(h hostFacts) (signals []string, skip string)
	// contradiction must be part of a contradiction; noContradiction
	// must be part of none.
	contradiction, noContradiction string
	// mount says how probe_namespace relates to the host's: "same" (same
	// mount namespace: the exact value is known), "differs" (a new mount
	// namespace: a different, non-null value), "null" (no /proc) or
	// "unreadable" (a procfs that does not list the probe).
	mount string
	// wantType is runtime_context.type, from the host's own facts.
	wantType func(h hostFacts, s *sandbox.Summary) string
}

var sandboxCases = []sandboxCase{
	{
		key: "unshare-m", signals: []string{"mnt_ns_differs_from_parent"}, mount: "differs",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		// The parent is a shell inside; only the grandparent is outside.
		key: "unshare-m-shell", signals: []string{"mnt_ns_differs_from_ancestor"}, mount: "differs",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		// PID 1 is now the probe itself, in the test's cgroup.
		key: "unshare-pf-mount-proc", signals: []string{"pid_ns_not_initial", "probe_is_pid1"}, mount: "differs",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.selfCgroup) },
	},
	{
		key: "unshare-U", signals: []string{"user_ns_not_initial", "user_ns_uid_map"}, mount: "same",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		key: "unshare-Ur", signals: []string{"user_ns_not_initial", "user_ns_uid_map"}, mount: "same",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		// Only the network namespace is new; its inode is not fixed, so
		// the parent is what tells.
		key: "unshare-n", signals: []string{"net_ns_differs_from_ancestor"}, mount: "same",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		// bwrap unshares the user namespace only where the kernel lets it
		// (--unshare-user-try), so user_ns_not_initial is not required.
		// PID 1 is bwrap, in the test's cgroup, seen through a new cgroup
		// namespace (paths read "/") where the kernel allows one.
		key: "bwrap", signals: []string{"pid_ns_not_initial", "uts_ns_not_initial", "ipc_ns_not_initial"}, mount: "differs",
		wantType: func(h hostFacts, s *sandbox.Summary) string {
			if sg, _ := s.Signal("cgroup_ns_not_initial"); sg.Fired {
				return h.runtimeType(nil)
			}
			return h.runtimeType(h.selfCgroup)
		},
	},
	{
		key: "chroot", signals: []string{"procfs_missing"}, mount: "null",
		wantType: func(hostFacts, *sandbox.Summary) string { return "baremetal" },
	},
	{
		// The root has no markers, but /proc is the host's: PID 1's cgroup
		// still counts. The kernel hides the real root mount.
		key: "chroot-proc", signals: []string{"root_mount_unlisted"}, mount: "differs",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.withoutMarkers().runtimeType(h.pid1Cgroup) },
	},
	{
		// Left the sandbox's process tree: no ancestor shows the new
		// mount namespace. Only the kernel's fixed initial number (or
		// PID 1's link, where readable) can.
		key: "unshare-m-setsid", mount: "differs",
		signalsFor: func(h hostFacts) ([]string, string) {
			return h.escaped("mnt", "mnt_ns_not_initial", "mnt_ns_differs_from_pid1")
		},
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		key: "unshare-n-setsid", mount: "same",
		signalsFor: func(h hostFacts) ([]string, string) {
			return h.escaped("net", "net_ns_not_initial", "net_ns_differs_from_ancestor")
		},
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		// The container's procfs does not list the probe: said as such,
		// not as a missing /proc. PID 1 there is the container's sleep,
		// in the test's cgroup.
		key: "nsenter-m", signals: []string{"procfs_foreign"}, mount: "unreadable",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.selfCgroup) },
	},
	{
		key: "proot", signals: []string{"proot_tracer"}, mount: "same",
		wantType: func(h hostFacts, _ *sandbox.Summary) string { return h.runtimeType(h.pid1Cgroup) },
	},
	{
		// nspawn announces itself (/run/host/container-manager): not an
		// "unmarked sandbox", though the Python probe's signals are silent.
		key: "systemd-nspawn", signals: []string{"pid_ns_not_initial", "host_container_manager"}, mount: "differs",
		contradiction: "a container that announces itself through", noContradiction: "unmarked sandbox",
		wantType: func(h hostFacts, s *sandbox.Summary) string {
			if sg, _ := s.Signal("cgroup_ns_not_initial"); sg.Fired {
				return h.withoutMarkers().runtimeType(nil)
			}
			return h.withoutMarkers().runtimeType(h.selfCgroup)
		},
	},
	{
		key: "podman", signals: []string{"containerenv", "pid_ns_not_initial", "probe_is_pid1"}, mount: "differs",
		wantType: func(hostFacts, *sandbox.Summary) string { return "podman" },
	},
	{
		// Every namespace but mnt is the host's; the overlay root backs
		// the marker, so it is not "a marker and nothing else".
		key: "podman-host-ns", signals: []string{"containerenv", "root_mount_container_like"}, mount: "differs",
		noContradiction: "yet no other signal fired",
		wantType:        func(hostFacts, *sandbox.Summary) string { return "podman" },
	},
	{
		key: "docker", signals: []string{"dockerenv", "pid_ns_not_initial", "probe_is_pid1"}, mount: "differs",
		wantType: func(hostFacts, *sandbox.Summary) string { return "docker" },
	},
}

// TestSandboxes builds the real static binary once, checks that it is
// statically linked, and runs it on the host and in each real sandbox of
// internal/sandbox (docs/isolation.md#real-sandboxes). Expectations
// come from the host itself (this machine may carry /.dockerenv in its
// initial namespaces), never from constants. The cases are independent
// (each its own scratch directory, image name, engine or namespace) and
// run in parallel, beside the package's other parallel tests.
func TestSandboxes(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		skipOrFail(t, "sandbox tests need Linux, this is "+runtime.GOOS)
	}
	if testing.Short() {
		skipOrFail(t, "sandbox tests are not run with -short")
	}
	bin := buildStaticProbe(t)
	t.Run("static", func(t *testing.T) {
		t.Parallel()
		if err := sandbox.CheckStatic(bin); err != nil {
			t.Fatal(err)
		}
		// file(1) as a second opinion where it is installed; the ELF check
		// above is the one that needs no tool.
		if _, err := exec.LookPath("file"); err == nil {
			out, err := exec.Command("file", "-b", bin).Output()
			if err != nil {
				t.Fatalf("file -b %s: %v", bin, err)
			}
			if !strings.Contains(string(out), "statically linked") {
				t.Errorf("file -b %s: %s, want statically linked", bin, strings.TrimSpace(string(out)))
			}
		}
	})
	h := readHostFacts(t)

	t.Run("host", func(t *testing.T) {
		t.Parallel()
		s := runSandbox(t, "host", bin)
		if want := h.runtimeType(h.pid1Cgroup); s.RuntimeContext.Type != want {
			t.Errorf("runtime_context.type = %q, want %q", s.RuntimeContext.Type, want)
		}
		for name, want := range h.signals {
			sg, ok := s.Signal(name)
			if !ok {
				t.Errorf("signal %s missing", name)
			} else if sg.Fired != want {
				t.Errorf("signal %s fired = %v, but the host shows %v (observed %s)", name, sg.Fired, want, deref(sg.Observed))
			}
		}
		if deciding := s.FiredDeciding(); s.ContainerDetected != (len(deciding) > 0) {
			t.Errorf("container_detected = %v, deciding signals fired: %v", s.ContainerDetected, deciding)
		}
		// A marker and nothing else (this project's CI VMs ship
		// /.dockerenv in their initial namespaces) is named as such, and
		// only then.
		markerOnly := len(s.Fired()) > 0
		for _, n := range s.Fired() {
			markerOnly = markerOnly && (n == "dockerenv" || n == "containerenv")
		}
		if got := s.HasContradiction("yet no other signal fired"); got != markerOnly {
			t.Errorf("marker-only contradiction present = %v, fired %v: %q", got, s.Fired(), s.Provenance.Isolation.Contradictions)
		}
		if s.RuntimeContext.Type != "baremetal" && !s.ContainerDetected {
			t.Errorf("runtime_context.type %q but container_detected false", s.RuntimeContext.Type)
		}
		checkNamespace(t, s, h, "same")
	})

	// The host again with $KUBERNETES_SERVICE_HOST: it corroborates and
	// never decides, so container_detected is what the deciding signals
	// say, exactly as on the plain host.
	t.Run("host-k8s-env", func(t *testing.T) {
		t.Parallel()
		s := runSandbox(t, "host-k8s-env", bin)
		sg, ok := s.Signal("kubernetes_service_env")
		if !ok || !sg.Fired || sg.Deciding || deref(sg.Observed) != strconv.Quote(sandbox.K8sServiceHost) {
			t.Errorf("kubernetes_service_env = %+v, want fired, not deciding, observed %s", sg, sandbox.K8sServiceHost)
		}
		deciding := s.FiredDeciding()
		if s.ContainerDetected != (len(deciding) > 0) {
			t.Errorf("container_detected = %v, deciding signals fired: %v", s.ContainerDetected, deciding)
		}
		for name, want := range h.signals {
			if sg, _ := s.Signal(name); sg.Fired != want {
				t.Errorf("signal %s fired = %v, but the host shows %v", name, sg.Fired, want)
			}
		}
		if len(deciding) == 0 && !s.HasContradiction("only corroborating signals fired") {
			t.Errorf("no deciding signal, but no corroborating-only contradiction: %q", s.Provenance.Isolation.Contradictions)
		}
	})

	for _, c := range sandboxCases {
		t.Run(c.key, func(t *testing.T) {
			t.Parallel()
			signals := c.signals
			if c.signalsFor != nil {
				var skip string
				if signals, skip = c.signalsFor(h); skip != "" {
					// A kernel limit, not a missing tool: nothing to install.
					t.Skip(skip)
				}
			}
			s := runSandbox(t, c.key, bin)
			// The probe must never report the absence of isolation that
			// is really there.
			if !s.ContainerDetected || s.Verdict() != "isolated" {
				t.Errorf("container_detected = %v, verdict %q inside %s; signals fired: %v",
					s.ContainerDetected, s.Verdict(), c.key, s.Fired())
			}
			for _, name := range signals {
				sg, ok := s.Signal(name)
				switch {
				case !ok:
					t.Errorf("signal %s missing", name)
				case !sg.Fired:
					t.Errorf("signal %s did not fire (observed %s, error %s); fired: %v",
						name, deref(sg.Observed), deref(sg.Error), s.Fired())
				}
			}
			if want := c.wantType(h, s); s.RuntimeContext.Type != want {
				t.Errorf("runtime_context.type = %q, want %q", s.RuntimeContext.Type, want)
			}
			if c.contradiction != "" && !s.HasContradiction(c.contradiction) {
				t.Errorf("no contradiction contains %q: %q", c.contradiction, s.Provenance.Isolation.Contradictions)
			}
			if c.noContradiction != "" && s.HasContradiction(c.noContradiction) {
				t.Errorf("a contradiction contains %q: %q", c.noContradiction, s.Provenance.Isolation.Contradictions)
			}
			checkNamespace(t, s, h, c.mount)
		})
	}
}

// runSandbox runs the named case, skipping (or failing under
// AORTA_PROBE_REQUIRE_SANDBOXES=1) when it cannot run here, and checks
// what every run must show.
func runSandbox(t *testing.T, key, bin string) *sandbox.Summary {
	t.Helper()
	sb, doc := sandboxDoc(t, key, bin, t.TempDir())
	s, err := sandbox.Summarize(doc)
	if err != nil {
		t.Fatalf("%s: %v", sb.Label, err)
	}
	if s.SchemaVersion != "1.16" {
		t.Errorf("schema_version = %q, want 1.16", s.SchemaVersion)
	}
	if want := s.ContainerDetected; (s.Verdict() == "isolated") != want {
		t.Errorf("verdict %q disagrees with container_detected %v", s.Verdict(), want)
	}
	t.Logf("%s: container_detected=%v type=%s probe_namespace=%s fired=%v",
		sb.Label, s.ContainerDetected, s.RuntimeContext.Type, s.Namespace(), s.Fired())
	return s
}

// sandboxDoc runs the named case with scratch as its working directory
// and returns it with the document it wrote, skipping (or failing under
// AORTA_PROBE_REQUIRE_SANDBOXES=1) when it cannot run here. The commands
// it ran are logged when the test fails.
func sandboxDoc(t *testing.T, key, bin, scratch string) (sandbox.Sandbox, []byte) {
	t.Helper()
	sb, ok := sandbox.Lookup(key)
	if !ok {
		t.Fatalf("no sandbox %q in internal/sandbox", key)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if why := sb.Unavailable(ctx); why != "" {
		skipOrFail(t, why)
	}
	var log bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("commands:\n%s", log.String())
		}
	})
	doc, err := sb.Run(ctx, bin, scratch, &log)
	if err != nil {
		t.Fatalf("%s: %v", sb.Label, err)
	}
	return sb, doc
}

// checkNamespace compares probe_namespace with the host's.
func checkNamespace(t *testing.T, s *sandbox.Summary, h hostFacts, mount string) {
	t.Helper()
	switch mount {
	case "same":
		if h.namespace == nil {
			t.Logf("this process's mount namespace link is unreadable; probe_namespace not compared")
		} else if s.Namespace() != *h.namespace {
			t.Errorf("probe_namespace = %s, want the host's %s (same mount namespace)", s.Namespace(), *h.namespace)
		}
	case "differs":
		switch {
		case s.ProbeNamespace == nil:
			t.Errorf("probe_namespace is null in a new mount namespace; reasons: %q", s.PartialReasons)
		case h.namespace != nil && *s.ProbeNamespace == *h.namespace:
			t.Errorf("probe_namespace = %s, the host's, in a new mount namespace", *s.ProbeNamespace)
		}
	case "unreadable":
		if s.ProbeNamespace != nil {
			t.Errorf("probe_namespace = %s under a procfs that does not list the probe, want null", *s.ProbeNamespace)
		}
		r := "probe_namespace.mount_namespace: /proc/self/ns/mnt unreadable (FileNotFoundError: [Errno 2] No such file or directory: '/proc/self/ns/mnt'); trying cgroup namespace"
		if !slices.Contains(s.PartialReasons, r) {
			t.Errorf("partial_reasons lack %q: %q", r, s.PartialReasons)
		}
	case "null":
		if s.ProbeNamespace != nil {
			t.Errorf("probe_namespace = %s without /proc, want null", *s.ProbeNamespace)
		}
		for _, r := range []string{
			"probe_namespace.boot_id: unavailable; fingerprint is local-only",
			"probe_namespace.mount_namespace: /proc/self/ns/mnt unreadable (FileNotFoundError: [Errno 2] No such file or directory: '/proc/self/ns/mnt'); trying cgroup namespace",
		} {
			if !slices.Contains(s.PartialReasons, r) {
				t.Errorf("partial_reasons lack %q: %q", r, s.PartialReasons)
			}
		}
	}
}

// buildStaticProbe is the static binary (staticProbe), built once per test
// process whichever test or benchmark asks first.
func buildStaticProbe(t testing.TB) string {
	t.Helper()
	bin, err := staticProbe()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// hostFacts is what this test process sees of the machine; the probe run
// directly from it shares every namespace with it.
type hostFacts struct {
	pid1Cgroup, selfCgroup *string
	// namespace is probe_namespace computed from this process's own mount
	// namespace link and boot id
	// (docs/fields-process.md#probe_namespace-process), nil when unreadable.
	namespace *string
	// signals maps the isolation signals whose outcome the host itself
	// shows to that outcome.
	signals map[string]bool
	// fixedNumbering: this kernel gives the initial mount and network
	// namespaces fixed numbers (this process's own link shows one, or
	// the release is 6.18 or later), so a process that left its
	// sandbox's tree is still seen.
	fixedNumbering bool
	// pid1Links maps "mnt" and "net" to whether /proc/1/ns/KIND is
	// readable by this process.
	pid1Links map[string]bool
}

// escaped is what must fire for a process that left a new KIND
// namespace's process tree: fixed when the kernel numbers the initial
// namespace, else viaPID1 when PID 1's link is readable; otherwise no
// signal can see it, and skip says why.
func (h hostFacts) escaped(kind, fixed, viaPID1 string) ([]string, string) {
	switch {
	case h.fixedNumbering:
		return []string{fixed}, ""
	case h.pid1Links[kind]:
		return []string{viaPID1}, ""
	}
	return nil, "this kernel has no fixed initial " + kind + " namespace number and /proc/1/ns/" + kind +
		" is unreadable: no signal can see a process that left its sandbox's tree (docs/isolation.md)"
}

// initialNS are the kernel's fixed initial namespace inodes
// (include/linux/proc_ns.h), written out again so the test does not
// borrow the probe's table.
var initialNS = map[string]uint64{
	"pid": 0xEFFFFFFC, "user": 0xEFFFFFFD, "cgroup": 0xEFFFFFFB,
	"uts": 0xEFFFFFFE, "ipc": 0xEFFFFFFF, "time": 0xEFFFFFFA,
}

func readHostFacts(t *testing.T) hostFacts {
	t.Helper()
	h := hostFacts{signals: map[string]bool{}}
	text := func(p string) *string {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		s := strings.TrimSpace(string(b))
		return &s
	}
	h.pid1Cgroup, h.selfCgroup = text("/proc/1/cgroup"), text("/proc/self/cgroup")
	if mnt, err := os.Readlink("/proc/self/ns/mnt"); err == nil && mnt != "" {
		material, prefix := "mnt\x00"+mnt, "mnt-local"
		if boot := text("/proc/sys/kernel/random/boot_id"); boot != nil && *boot != "" {
			material, prefix = "mnt\x00"+*boot+"\x00"+mnt, "mnt"
		}
		sum := sha256.Sum256([]byte(material))
		ns := prefix + ":" + hex.EncodeToString(sum[:])[:16]
		h.namespace = &ns
	}
	h.signals["dockerenv"] = exists("/.dockerenv")
	h.signals["containerenv"] = exists("/run/.containerenv")
	for kind, initial := range initialNS {
		link, err := os.Readlink("/proc/self/ns/" + kind)
		if err != nil {
			continue // the probe records the error and does not fire
		}
		n, ok := strings.CutPrefix(link, kind+":[")
		ino, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64)
		h.signals[kind+"_ns_not_initial"] = ok && err == nil && ino != initial
	}
	for kind, ino := range map[string]uint64{"mnt": 0xEFFFFFF8, "net": 0xEFFFFFF9} {
		if link, err := os.Readlink("/proc/self/ns/" + kind); err == nil && link == fmt.Sprintf("%s:[%d]", kind, ino) {
			h.fixedNumbering = true
		}
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		var rel []byte
		for _, c := range u.Release {
			if c == 0 {
				break
			}
			rel = append(rel, byte(c))
		}
		var major, minor int
		if n, _ := fmt.Sscanf(string(rel), "%d.%d", &major, &minor); n == 2 && (major > 6 || major == 6 && minor >= 18) {
			h.fixedNumbering = true
		}
	}
	h.pid1Links = map[string]bool{}
	for _, kind := range []string{"mnt", "net"} {
		_, err := os.Readlink("/proc/1/ns/" + kind)
		h.pid1Links[kind] = err == nil
	}
	t.Logf("host signals as this process sees them: %v; fixed initial mnt/net numbers: %v; PID 1 links readable: %v",
		h.signals, h.fixedNumbering, h.pid1Links)
	return h
}

// runtimeType is runtime_context.type
// (docs/fields-process.md#runtime_context-process) over this machine's
// markers and the given PID 1 cgroup text (nil: unreadable).
func (h hostFacts) runtimeType(pid1Cgroup *string) string {
	switch {
	case h.signals["dockerenv"]:
		return "docker"
	case h.signals["containerenv"]:
		return "podman"
	case os.Getenv("SINGULARITY_NAME") != "":
		return "singularity"
	}
	if pid1Cgroup != nil {
		for _, tok := range []string{"singularity", "docker", "podman"} {
			if strings.Contains(*pid1Cgroup, tok) {
				return tok
			}
		}
	}
	return "baremetal"
}

// withoutMarkers is h for a root that has no /.dockerenv or
// /run/.containerenv.
func (h hostFacts) withoutMarkers() hostFacts {
	out := h
	out.signals = map[string]bool{}
	for k, v := range h.signals {
		out.signals[k] = v
	}
	out.signals["dockerenv"], out.signals["containerenv"] = false, false
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func deref(p *string) string {
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}
