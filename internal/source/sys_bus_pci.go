package source

import (
	"errors"
	"strings"
)

// PCIIDs lists the vendor:device ids of every PCI function in
// /sys/bus/pci/devices/*/{vendor,device}, as lspci -d matches them
// ("14e4:1760"). A list that cannot be complete (the directory is
// missing, an attribute unreadable: Attr) is an error, and no list.
//
// Source: /sys/bus/pci/devices/<addr>/vendor and device ("0x14e4").
func (fs FS) PCIIDs() (map[string]bool, error) {
	const dir = "/sys/bus/pci/devices"
	es, err := fs.m.ReadDir(dir)
	if err != nil {
		return nil, readErr(dir, err)
	}
	ids := map[string]bool{}
	for _, e := range es {
		d := dir + "/" + e.Name()
		v, verr := fs.Attr(d + "/vendor")
		dev, derr := fs.Attr(d + "/device") // read even when vendor failed: a capture records both
		if err := errors.Join(verr, derr); err != nil {
			return nil, err
		}
		ids[strings.TrimPrefix(strings.ToLower(v), "0x")+":"+strings.TrimPrefix(strings.ToLower(dev), "0x")] = true
	}
	return ids, nil
}
