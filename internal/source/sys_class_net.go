package source

import (
	"sort"
	"strings"
)

// Readers of /sys/class/net, which shows only the interfaces of the
// probe's network namespace (docs/hardware.md#nics).

// NetInterfacesOfVendor lists /sys/class/net, sorted by name, and keeps the
// interfaces whose device/vendor attribute, lower-cased, equals vendorID
// (e.g. "0x1dd8"). An interface whose vendor cannot be read (Attr) is
// skipped; a listing error is ErrRead.
//
// Source: /sys/class/net, /sys/class/net/<if>/device/vendor.
func (fs FS) NetInterfacesOfVendor(vendorID string) ([]string, error) {
	const dir = "/sys/class/net"
	es, err := fs.m.ReadDir(dir)
	if err != nil {
		return nil, readErr(dir, err)
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		v, err := fs.Attr(dir + "/" + n + "/device/vendor")
		if err == nil && strings.ToLower(v) == vendorID {
			out = append(out, n)
		}
	}
	return out, nil
}

// NetdevDriver is the driver bound to network interface ifname; ErrName
// when ifname cannot name an entry, ErrRead when the link cannot be read.
//
// Source: readlink /sys/class/net/<if>/device/driver.
func (fs FS) NetdevDriver(ifname string) (string, error) {
	if err := sysName(ifname); err != nil {
		return "", err
	}
	return fs.linkBase("/sys/class/net/" + ifname + "/device/driver")
}
