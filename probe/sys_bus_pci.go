package probe

import (
	"aorta-probe/internal/machine"
	"strings"
)

// pciIDs lists the vendor:device ids of every PCI function in
// /sys/bus/pci/devices/*/{vendor,device}, as lspci -d matches them
// ("14e4:1760"). ok is false when the list is not complete (the directory
// is missing or an entry is unreadable): the caller must then ask lspci.
//
// Source: /sys/bus/pci/devices/<addr>/vendor and device ("0x14e4").
func pciIDs(root *machine.FS) (ids map[string]bool, ok bool) {
	es, err := root.ReadDir("/sys/bus/pci/devices")
	if err != nil {
		return nil, false
	}
	ids = map[string]bool{}
	for _, e := range es {
		dir := "/sys/bus/pci/devices/" + e.Name()
		v, d := root.ReadText(dir+"/vendor"), root.ReadText(dir+"/device")
		if v == nil || d == nil {
			return nil, false
		}
		ids[strings.TrimPrefix(strings.ToLower(*v), "0x")+":"+strings.TrimPrefix(strings.ToLower(*d), "0x")] = true
	}
	return ids, true
}
