package source

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"
)

const netArchive = `
-- sys/class/net/benic2p1/device/vendor --
0x14e4
-- sys/class/net/benic1p1/device/vendor --
  0X14E4
-- sys/class/net/bad/device/vendor [mode 0000] --
0x14e4
-- sys/class/net/nul/device/vendor --
0x14e4` + "\xff" + `
-- sys/class/net/eno1/device/vendor --
0x8086
-- sys/class/net/lo/type --
772
-- sys/class/net/benic1p1/device/driver -> ../../../../bus/pci/drivers/bnxt_en --
-- sys/class/infiniband/rdma0/device/driver -> ../../../bus/pci/drivers/ionic/ --
-- sys/class/infiniband/plain/device/driver [dir] --
`

func TestNetInterfacesOfVendor(t *testing.T) {
	src := fakeFS(t, netArchive)
	got, err := src.NetInterfacesOfVendor("0x14e4")
	// Sorted; case and whitespace folded; unreadable, non-UTF-8 and
	// device-less interfaces skipped. (Run as root, mode 0000 is readable.)
	want := []string{"benic1p1", "benic2p1"}
	if len(got) == 3 && got[0] == "bad" {
		want = append([]string{"bad"}, want...)
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("NetInterfacesOfVendor = %q, %v; want %q", got, err, want)
	}
	got, err = fakeFS(t, "").NetInterfacesOfVendor("0x14e4")
	if got != nil || !errors.Is(err, ErrRead) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no /sys/class/net: %q, %v; want ErrRead over ErrNotExist", got, err)
	}
}

func TestNetdevDriver(t *testing.T) {
	src := fakeFS(t, netArchive)
	if d, err := src.NetdevDriver("benic1p1"); d != "bnxt_en" || err != nil {
		t.Errorf("NetdevDriver = %q, %v", d, err)
	}
	if d, err := src.NetdevDriver("eno1"); d != "" || !errors.Is(err, ErrRead) {
		t.Errorf("no driver link: %q, %v; want ErrRead", d, err)
	}
	if d, err := src.NetdevDriver("../net/benic1p1"); d != "" || !errors.Is(err, ErrName) {
		t.Errorf("a path as a name: %q, %v; want ErrName", d, err)
	}
}

func FuzzNetdevDriver(f *testing.F) {
	f.Add("benic1p1")
	f.Add("..")
	f.Fuzz(func(t *testing.T, name string) {
		src := NewFS(nil)
		if sysName(name) != nil {
			// Rejected before any read (a nil machine would panic).
			if _, err := src.NetdevDriver(name); !errors.Is(err, ErrName) {
				t.Fatalf("NetdevDriver(%q) = %v, want ErrName", name, err)
			}
		}
	})
}
