package source

// The readers through a fake root, on the formats tuning.md quotes.

import (
	"errors"
	"io/fs"
	"testing"
)

func TestTuningReaders(t *testing.T) {
	f := fakeFS(t, `
-- proc/sys/kernel/numa_balancing --
1
-- proc/sys/kernel/osrelease --
6.8.0-40-generic
-- proc/sys/vm/compaction_proactiveness --
20
-- proc/meminfo --
MemTotal:       2113638400 kB
-- sys/devices/system/cpu/online --
0-3
-- sys/devices/system/cpu/smt/control --
on
-- sys/devices/system/cpu/smt/active --
1
-- sys/devices/system/cpu/cpu0/cpuidle/state0/name --
POLL
-- sys/devices/system/cpu/cpu0/cpuidle/state1/name --
C1
-- sys/devices/system/cpu/cpu0/cpuidle/state2/name --
C2
-- sys/devices/system/cpu/cpu1/cpuidle/state2/disable --
1
-- sys/devices/system/cpu/cpu0/topology/package_cpus_list --
0-1
-- sys/devices/system/node/node0/cpulist --
0-1
-- sys/devices/system/node/node1/cpulist --
2-3
-- sys/devices/system/node/node2/cpulist --

-- sys/devices/system/node/online --
0-2
-- sys/kernel/mm/transparent_hugepage/enabled --
always [madvise] never
-- sys/module/pcie_aspm/parameters/policy --
[default] performance powersave powersupersave 
-- sys/module/amdgpu/initstate --
live
-- sys/kernel/iommu_groups/11/type --
DMA-FQ
-- sys/kernel/iommu_groups/12/type --
identity
-- sys/firmware/acpi/tables/IVRS [mode 0400] --
-- sys/bus/pci/devices/0000:0a:00.0/iommu_group -> ../../../../kernel/iommu_groups/11 --
-- sys/bus/pci/devices/0000:0a:00.0/hwmon/hwmon3/power1_cap --
750000000
`)
	if n, err := f.NUMABalancing(); n != 1 || err != nil {
		t.Errorf("numa_balancing %d %v", n, err)
	}
	if _, err := f.CompactUnevictableAllowed(); !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrRead) {
		t.Errorf("missing sysctl: %v", err)
	}
	if r, err := f.KernelRelease(); r != "6.8.0-40-generic" || err != nil {
		t.Errorf("osrelease %q %v", r, err)
	}
	if n, err := f.MemTotal(); n != 2113638400*1024 || err != nil {
		t.Errorf("memtotal %d %v", n, err)
	}
	if l, err := f.CPUs("online"); len(l) != 4 || err != nil {
		t.Errorf("online %v %v", l, err)
	}
	if c, err := f.SMTControl(); c != "on" || err != nil {
		t.Errorf("smt %q %v", c, err)
	}
	if k, err := f.CPUIdleState(0, "C2"); k != 2 || err != nil {
		t.Errorf("C2 index %d %v", k, err)
	}
	if k, err := f.CPUIdleState(0, "C9"); k != -1 || err != nil {
		t.Errorf("no C9: %d %v", k, err)
	}
	if d, err := f.CPUIdleDisabled(1, 2); !d || err != nil {
		t.Errorf("disable %v %v", d, err)
	}
	if l, err := f.PackageCPUs(0); len(l) != 2 || err != nil {
		t.Errorf("package %v %v", l, err)
	}
	if n, err := f.NUMANodes(); len(n) != 3 || n[2].CPUs != 0 || n[1].CPUs != 2 || err != nil {
		t.Errorf("nodes %v %v", n, err)
	}
	if w, err := f.THPEnabled(); w != "madvise" || err != nil {
		t.Errorf("thp %q %v", w, err)
	}
	if w, err := f.PCIeASPMPolicy(); w != "default" || err != nil {
		t.Errorf("aspm %q %v", w, err)
	}
	if s, err := f.ModuleInitstate("amdgpu"); s != "live" || err != nil {
		t.Errorf("initstate %q %v", s, err)
	}
	if _, err := f.ModuleParam("../etc", "x"); !errors.Is(err, ErrName) {
		t.Errorf("module name with a slash: %v", err)
	}
	if n, err := f.IOMMUGroups(); n != 2 || err != nil {
		t.Errorf("groups %d %v", n, err)
	}
	typ, group, err := f.DeviceIOMMUGroupType("/sys/bus/pci/devices/0000:0a:00.0")
	if typ != "DMA-FQ" || group != "/sys/kernel/iommu_groups/11/type" || err != nil {
		t.Errorf("group type %q %q %v", typ, group, err)
	}
	if ok, err := f.ACPITable("IVRS"); !ok || err != nil {
		t.Errorf("IVRS %v %v", ok, err)
	}
	if ok, err := f.ACPITable("DMAR"); ok || err != nil {
		t.Errorf("DMAR %v %v", ok, err)
	}
	h, err := f.AMDGPUHwmon("/sys/bus/pci/devices/0000:0a:00.0")
	if h != "/sys/bus/pci/devices/0000:0a:00.0/hwmon/hwmon3" || err != nil {
		t.Fatalf("hwmon %q %v", h, err)
	}
	if n, err := f.AttrInt(h + "/power1_cap"); n != 750000000 || err != nil {
		t.Errorf("power1_cap %d %v", n, err)
	}
}
