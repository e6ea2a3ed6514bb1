package probe

import (
	"aorta-probe/internal/machine"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestAskNamespaceID: the ioctls asked in order, and each failure worded
// with what it means (docs/isolation.md#placement-identity).
func TestAskNamespaceID(t *testing.T) {
	answer := func(byReq map[uintptr]error) func(uintptr) (uint64, error) {
		return func(req uintptr) (uint64, error) {
			if err, ok := byReq[req]; ok {
				return 0, err
			}
			return 42, nil
		}
	}
	cases := []struct {
		kind   string
		byReq  map[uintptr]error
		want   machine.NamespaceAnswer
		reason string
	}{
		{"net", nil, machine.NamespaceAnswer{ID: 42, Source: "NS_GET_ID"}, ""},
		// Linux 6.8 to 6.17: only the mount namespace has an id.
		{"mnt", map[uintptr]error{nsGetID: syscall.ENOTTY}, machine.NamespaceAnswer{ID: 42, Source: "NS_GET_MNTNS_ID"}, ""},
		{"net", map[uintptr]error{nsGetID: syscall.ENOTTY}, machine.NamespaceAnswer{}, "NS_GET_ID: ENOTTY (a kernel before 6.18)"},
		// Before 6.8.
		{"mnt", map[uintptr]error{nsGetID: syscall.ENOTTY, nsGetMntnsID: syscall.ENOTTY}, machine.NamespaceAnswer{},
			"NS_GET_ID: ENOTTY (a kernel before 6.18); NS_GET_MNTNS_ID: ENOTTY (a kernel before 6.8)"},
		{"mnt", map[uintptr]error{nsGetID: syscall.EINVAL, nsGetMntnsID: syscall.EINVAL}, machine.NamespaceAnswer{},
			"NS_GET_ID: EINVAL (a kernel before 6.18); NS_GET_MNTNS_ID: EINVAL (a kernel before 6.8)"},
		// A seccomp policy.
		{"pid", map[uintptr]error{nsGetID: syscall.EPERM}, machine.NamespaceAnswer{}, "NS_GET_ID: EPERM (refused, e.g. by a seccomp policy)"},
	}
	for _, c := range cases {
		got := askNamespaceID(c.kind, answer(c.byReq))
		c.want.Reason = c.reason
		if got != c.want {
			t.Errorf("%s %v: %+v, want %+v", c.kind, c.byReq, got, c.want)
		}
	}
}

// TestNsfsRequestNumbers pins the ioctl numbers to _IOR(0xb7, nr, __u64).
func TestNsfsRequestNumbers(t *testing.T) {
	ior := func(typ, nr, size uintptr) uintptr { return 2<<30 | size<<16 | typ<<8 | nr }
	if nsGetMntnsID != ior(0xb7, 5, 8) || nsGetID != ior(0xb7, 13, 8) {
		t.Errorf("NS_GET_MNTNS_ID %#x, NS_GET_ID %#x", nsGetMntnsID, nsGetID)
	}
}

// TestIdentityLive: on this machine's kernel, the probe's own namespaces
// answer with the ids the kernel gives this test process, or every reason
// names the errno; the grade follows.
func TestIdentityLive(t *testing.T) {
	if _, err := os.Stat("/proc/self/ns/mnt"); err != nil {
		t.Skipf("no /proc/self/ns: %v", err)
	}
	s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})}
	id := collectProbeNamespace(s).identity
	f, err := os.Open("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := nsIoctl(f, nsGetID)
	if u, uerr := sysUname(); uerr == nil && kernelAtLeast(u.Release, 6, 18) && err != nil {
		t.Fatalf("kernel %s has NS_GET_ID, the ioctl says %v: wrong request number?", u.Release, err)
	}
	mnt := id.Namespaces[0]
	switch {
	case err == nil && (mnt.ID == nil || *mnt.ID != want):
		t.Errorf("mnt id %v, want %d (this process's)", mnt.ID, want)
	case err == nil && id.Grade != "proof":
		t.Errorf("grade %q with a mount namespace id and boot %v", id.Grade, id.Boot)
	case err != nil && (mnt.Reason == nil || !strings.Contains(*mnt.Reason, "NS_GET_ID: ")):
		t.Errorf("no id (%v) and reason %v", err, mnt.Reason)
	}
	if len(id.Namespaces) != len(namespaceTypes) || id.AnsweredBy != "kernel" {
		t.Errorf("identity %+v", id)
	}
}

// TestIdentityOlderKernel: through the NamespaceID seam, a kernel without
// the ioctls: no id, the reason recorded, the inode hash kept, grade
// advisory; partial_reasons (one of the 40 aorta keys) unchanged.
func TestIdentityOlderKernel(t *testing.T) {
	if _, err := os.Stat("/proc/self/ns/mnt"); err != nil {
		t.Skipf("no /proc/self/ns: %v", err)
	}
	old := func(kind string) machine.NamespaceAnswer {
		return askNamespaceID(kind, func(uintptr) (uint64, error) { return 0, syscall.ENOTTY })
	}
	live := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})}
	liveRow := collectProbeNamespace(live)
	s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/", NamespaceID: old}})}
	row := collectProbeNamespace(s)
	id := row.identity
	if id.Grade != "advisory" {
		t.Errorf("grade %q, want advisory", id.Grade)
	}
	for _, ns := range id.Namespaces {
		if ns.ID != nil || ns.Reason == nil || !strings.Contains(*ns.Reason, "ENOTTY (a kernel before") || ns.InodeHash == nil {
			t.Errorf("%s: %+v", ns.Type, ns)
		}
	}
	if mnt := id.Namespaces[0]; row.namespace == nil || mnt.InodeHash == nil || *mnt.InodeHash != *row.namespace {
		t.Errorf("mnt inode hash %v, probe_namespace %v: must be equal", mnt.InodeHash, row.namespace)
	}
	if strings.Join(s.reasons, "\n") != strings.Join(live.reasons, "\n") || liveRow.namespace == nil || *liveRow.namespace != *row.namespace {
		t.Errorf("the identity changed the aorta keys: reasons %q vs %q", s.reasons, live.reasons)
	}
}

// kernelAtLeast reports whether a release such as "6.18.4-fc" is at least
// major.minor.
func kernelAtLeast(release string, major, minor int) bool {
	var a, b int
	if n, _ := fmt.Sscanf(release, "%d.%d", &a, &b); n < 2 {
		return false
	}
	return a > major || a == major && b >= minor
}

// BenchmarkIdentity is the cost probe_provenance.identity adds to the
// probe_namespace row: 8 opens, 8–9 ioctls, 8 readlinks and the boot id.
func BenchmarkIdentity(b *testing.B) {
	s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})}
	boot := s.root.ReadText("/proc/sys/kernel/random/boot_id")
	for b.Loop() {
		collectIdentity(s, boot)
	}
}
