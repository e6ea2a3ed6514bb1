package source

import (
	"path"
	"strings"
)

// IOMMUGroupsMax bounds the listing of /sys/kernel/iommu_groups (a large
// node has a few hundred groups).
const IOMMUGroupsMax = 4096

// IOMMUGroups counts /sys/kernel/iommu_groups/<N> (0: no IOMMU groups,
// the IOMMU is off or absent). Documentation/ABI/testing/
// sysfs-kernel-iommu_groups.
func (fs FS) IOMMUGroups() (int, error) {
	const dir = "/sys/kernel/iommu_groups"
	es, more, err := fs.m.ReadDirMax(dir, IOMMUGroupsMax)
	if err != nil {
		return 0, readErr(dir, err)
	}
	if more {
		return 0, parseErr(dir, "too many entries")
	}
	return len(es), nil
}

// IOMMUGroupTypes are the words iommu_group_show_type() writes
// (drivers/iommu/iommu.c).
var IOMMUGroupTypes = []string{"identity", "DMA", "DMA-FQ", "unmanaged", "blocked", "unknown"}

// DeviceIOMMUGroupType follows the device's iommu_group link
// (dev/iommu_group -> ../../../../kernel/iommu_groups/11) and reads that
// group's type; group is its path as the kernel names it
// (/sys/kernel/iommu_groups/11/type), for the source of the value.
func (fs FS) DeviceIOMMUGroupType(dev string) (typ, group string, err error) {
	t, err := fs.m.Readlink(dev + "/iommu_group")
	if err != nil {
		return "", dev + "/iommu_group", readErr(dev+"/iommu_group", err)
	}
	n := path.Base(strings.TrimRight(t, "/"))
	if err := sysName(n); err != nil {
		return "", dev + "/iommu_group", err
	}
	group = "/sys/kernel/iommu_groups/" + n + "/type"
	typ, err = fs.word(group, IOMMUGroupTypes...)
	return typ, group, err
}

// ACPITable reports whether /sys/firmware/acpi/tables/<name> exists
// (IVRS: an AMD IOMMU is described to the OS; DMAR: an Intel one). The
// table files are root-only to read; their presence is visible without
// root, and nothing is opened. Without the tables directory (no ACPI, or
// a tree without /sys/firmware) nothing can be said: ErrRead wrapping
// ENOENT.
func (fs FS) ACPITable(name string) (bool, error) {
	const dir = "/sys/firmware/acpi/tables"
	if _, err := fs.m.Lstat(dir); err != nil {
		return false, readErr(dir, err)
	}
	return fs.Present(dir + "/" + name)
}

// THPEnabled is the active choice of
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never":
// "madvise"), Documentation/admin-guide/mm/transhuge.rst.
func (fs FS) THPEnabled() (string, error) {
	return fs.bracketed("/sys/kernel/mm/transparent_hugepage/enabled")
}

// PCIeASPMPolicy is the active policy of
// /sys/module/pcie_aspm/parameters/policy ("[default] performance
// powersave powersupersave ": "default"), drivers/pci/pcie/aspm.c.
func (fs FS) PCIeASPMPolicy() (string, error) {
	return fs.bracketed("/sys/module/pcie_aspm/parameters/policy")
}

// ModuleInitstate is /sys/module/<module>/initstate ("live", "coming",
// "going").
func (fs FS) ModuleInitstate(module string) (string, error) {
	if err := sysName(module); err != nil {
		return "", err
	}
	return fs.Attr("/sys/module/" + module + "/initstate")
}

// ModuleParam is /sys/module/<module>/parameters/<name>, as written.
func (fs FS) ModuleParam(module, name string) (string, error) {
	if err := sysName(module); err != nil {
		return "", err
	}
	if err := sysName(name); err != nil {
		return "", err
	}
	return fs.Attr("/sys/module/" + module + "/parameters/" + name)
}

func (fs FS) bracketed(p string) (string, error) {
	s, err := fs.Attr(p)
	if err != nil {
		return "", err
	}
	w, ok := ParseBracketed(s)
	if !ok {
		return "", parseErr(p, "no one [choice] in brackets")
	}
	return w, nil
}

// ParseBracketed is the one word in brackets of a choice line
// ("always [madvise] never": "madvise").
func ParseBracketed(s string) (string, bool) {
	found := ""
	for _, f := range strings.Fields(s) {
		if len(f) > 2 && f[0] == '[' && f[len(f)-1] == ']' {
			if found != "" {
				return "", false
			}
			found = f[1 : len(f)-1]
		}
	}
	return found, found != ""
}
