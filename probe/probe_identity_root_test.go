package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/machine"
)

// TestAskRoot: each kernel answer worded; the device and inode kept
// whatever answers the mount id.
func TestAskRoot(t *testing.T) {
	full := statxAnswer{mask: statxIno | statxMntIDUnique, mntID: 2147483651, ino: 2, devMajor: 259, devMinor: 1}
	cases := []struct {
		name string
		stx  statxAnswer
		err  error
		stat error
		want machine.RootAnswer
	}{
		{"unique", full, nil, nil, machine.RootAnswer{MountID: 2147483651, Source: "STATX_MNT_ID_UNIQUE", Device: "259:1", Inode: 2}},
		{"before 6.8", statxAnswer{mask: statxIno | statxMntID, mntID: 23, ino: 2, devMajor: 8, devMinor: 1}, nil, nil,
			machine.RootAnswer{MountID: 23, Source: "STATX_MNT_ID", Reason: "STATX_MNT_ID_UNIQUE not answered (a kernel before 6.8); STATX_MNT_ID is reused", Device: "8:1", Inode: 2}},
		{"before 5.8", statxAnswer{mask: statxIno, ino: 7, devMajor: 0, devMinor: 34}, nil, nil,
			machine.RootAnswer{Reason: "STATX_MNT_ID_UNIQUE not answered (a kernel before 6.8)", Device: "0:34", Inode: 7}},
		{"no inode", statxAnswer{mask: statxMntIDUnique, mntID: 5}, nil, nil,
			machine.RootAnswer{MountID: 5, Source: "STATX_MNT_ID_UNIQUE"}},
		{"no statx", statxAnswer{}, syscall.ENOSYS, nil,
			machine.RootAnswer{Reason: "statx: ENOSYS (function not implemented)", Device: "259:1", Inode: 2}},
		{"seccomp", statxAnswer{}, syscall.EPERM, nil,
			machine.RootAnswer{Reason: "statx: EPERM (refused, e.g. by a seccomp policy)", Device: "259:1", Inode: 2}},
		{"nothing", statxAnswer{}, syscall.EPERM, syscall.EACCES,
			machine.RootAnswer{Reason: "statx: EPERM (refused, e.g. by a seccomp policy)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := askRoot(func(mask uint32) (statxAnswer, error) {
				if mask != statxIno|statxMntIDUnique {
					t.Errorf("mask %#x", mask)
				}
				return c.stx, c.err
			}, func() (statxAnswer, error) {
				return statxAnswer{mask: statxIno, ino: 2, devMajor: 259, devMinor: 1}, c.stat
			})
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestRootIDLive: statx of / on this kernel agrees with stat(2) on device
// and inode; from Linux 6.8 the unique mount id answers, and a directory
// on another mount (the test's temp dir when it is one, else /proc) has
// another. Under --root DIR the answer is DIR's.
func TestRootIDLive(t *testing.T) {
	a := rootID(machine.NewFS("/", "/", false))
	var st syscall.Stat_t
	if err := syscall.Stat("/", &st); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d:%d", devMajor(uint64(st.Dev)), devMinor(uint64(st.Dev))); a.Device != want || a.Inode != st.Ino {
		t.Errorf("device %q inode %d, stat says %q %d", a.Device, a.Inode, want, st.Ino)
	}
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skipf("no kernel release: %v", err)
	}
	release := strings.TrimSpace(string(b))
	if !kernelAtLeast(release, 6, 8) {
		if a.Source == "STATX_MNT_ID_UNIQUE" || a.Reason == "" {
			t.Errorf("kernel %s: %+v, want no unique id and a reason", release, a)
		}
		t.Skipf("kernel %s has no STATX_MNT_ID_UNIQUE; the advisory answer was checked", release)
	}
	if a.Source != "STATX_MNT_ID_UNIQUE" || a.Reason != "" || a.MountID == 0 {
		t.Fatalf("kernel %s: %+v, want a unique mount id", release, a)
	}
	proc := rootID(machine.NewFS("/proc", "/", false))
	if proc.Source != "STATX_MNT_ID_UNIQUE" || proc.MountID == a.MountID || proc.Device == a.Device {
		t.Errorf("/proc %+v, / %+v: want another mount", proc, a)
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "newroot")
	os.Mkdir(sub, 0o755)
	d, s := rootID(machine.NewFS(dir, "/", false)), rootID(machine.NewFS(sub, "/", false))
	if d.MountID != s.MountID || d.Device != s.Device || d.Inode == s.Inode {
		t.Errorf("two directories of one mount: %+v, %+v: want one mount id and device, two inodes", d, s)
	}
}
