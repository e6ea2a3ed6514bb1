package probe

import (
	"reflect"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
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

func TestSysClassNet(t *testing.T) {
	a, err := fakeroot.Parse([]byte(netArchive))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := a.Expand(dir); err != nil {
		t.Fatal(err)
	}
	root := machine.NewFS(dir, "/", false)
	got := netInterfacesOfVendor(root, "0x14e4")
	// Sorted; case and whitespace folded; unreadable, non-UTF-8 and
	// device-less interfaces skipped. (Run as root, mode 0000 is readable.)
	want := []string{"benic1p1", "benic2p1"}
	if len(got) == 3 && got[0] == "bad" {
		want = append([]string{"bad"}, want...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("netInterfacesOfVendor = %q, want %q", got, want)
	}
	if got := netInterfacesOfVendor(machine.NewFS(t.TempDir(), "/", false), "0x14e4"); got != nil {
		t.Errorf("no /sys/class/net: %q", got)
	}
	for _, tc := range []struct {
		name, dev, want string
		ok              bool
	}{
		{"trailing slash", "rdma0", "ionic", true},
		{"not a link", "plain", "", false},
		{"missing", "mlx5_0", "", false},
		{"dot-dot is not walked", "..", "", false},
		{"slash is not walked", "rdma0/../rdma0", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := rdmaDeviceDriver(root, tc.dev)
			if d != tc.want || ok != tc.ok {
				t.Errorf("rdmaDeviceDriver(%q) = %q, %v", tc.dev, d, ok)
			}
		})
	}
	if d, ok := netdevDriver(root, "benic1p1"); d != "bnxt_en" || !ok {
		t.Errorf("netdevDriver = %q, %v", d, ok)
	}
}
