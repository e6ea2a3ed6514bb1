package probe

import (
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
)

// Readers of the sysfs views the nics block binds devices with
// (docs/hardware.md#nics). /sys/class/net shows only the interfaces of the
// probe's network namespace; /sys/class/infiniband and /sys/module are
// host-wide.

// maxSysfsAttr bounds a sysfs attribute read (a PCI vendor id is 7 bytes).
const maxSysfsAttr = 4096

// netInterfacesOfVendor lists /sys/class/net, sorted by name, and keeps the
// interfaces whose device/vendor file, stripped and lower-cased, equals
// vendorID (e.g. "0x1dd8"). A listing error gives none; an unreadable
// vendor file skips that interface.
//
// Source: /sys/class/net, /sys/class/net/<if>/device/vendor.
func netInterfacesOfVendor(root *machine.FS, vendorID string) []string {
	es, err := root.ReadDir("/sys/class/net")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		b, err := root.ReadFile("/sys/class/net/"+n+"/device/vendor", maxSysfsAttr)
		if err != nil || !utf8.Valid(b) {
			continue
		}
		if strings.ToLower(pyfmt.Strip(pyfmt.UniversalNewlines(string(b)))) == vendorID {
			out = append(out, n)
		}
	}
	return out
}

// driverOfLink is the basename of the target of the driver symlink p
// (e.g. /sys/class/infiniband/rdma0/device/driver ->
// ../../../bus/pci/drivers/ionic gives "ionic"); ok is false when it cannot
// be read.
func driverOfLink(root *machine.FS, p string) (string, bool) {
	t, err := root.Readlink(p)
	if err != nil {
		return "", false
	}
	return path.Base(strings.TrimRight(t, "/")), true
}

// sysName reports whether a name taken from a tool's output can name a
// sysfs entry: one path element, not "." or "..". Other names (nonsense
// output) are treated as unresolvable rather than walked as paths.
func sysName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.Contains(n, "/")
}

// rdmaDeviceDriver is the driver bound to RDMA device dev.
//
// Source: readlink /sys/class/infiniband/<dev>/device/driver.
func rdmaDeviceDriver(root *machine.FS, dev string) (string, bool) {
	if !sysName(dev) {
		return "", false
	}
	return driverOfLink(root, "/sys/class/infiniband/"+dev+"/device/driver")
}

// netdevDriver is the driver bound to network interface ifname.
//
// Source: readlink /sys/class/net/<if>/device/driver.
func netdevDriver(root *machine.FS, ifname string) (string, bool) {
	if !sysName(ifname) {
		return "", false
	}
	return driverOfLink(root, "/sys/class/net/"+ifname+"/device/driver")
}
