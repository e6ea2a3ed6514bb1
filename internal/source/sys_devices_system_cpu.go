package source

import (
	"errors"
	iofs "io/fs"
	"strconv"
	"strings"
)

// CPUListMax bounds a CPU range list: more CPUs than any Linux build
// supports (CONFIG_NR_CPUS is at most 8192) make the list malformed.
const CPUListMax = 8192

// The CPU attributes of /sys/devices/system/cpu
// (Documentation/ABI/testing/sysfs-devices-system-cpu): kernel-global, a
// container sees the host's.
const sysCPU = "/sys/devices/system/cpu"

// CPUs reads a range list of /sys/devices/system/cpu: name is "online"
// or "present" ("0-255", "0,2-3").
func (fs FS) CPUs(name string) ([]int, error) {
	p := sysCPU + "/" + name
	s, err := fs.Attr(p)
	if err != nil {
		return nil, err
	}
	l, ok := ParseCPUList(s)
	if !ok {
		return nil, parseErr(p, "not a CPU range list")
	}
	return l, nil
}

// ParseCPUList parses a kernel CPU (or node) range list, "0-3,8,10-11",
// into its numbers in order; at most CPUListMax of them, each below
// CPUListMax. An empty list is valid (no CPU).
func ParseCPUList(s string) ([]int, bool) {
	s = strings.TrimSpace(s)
	out := []int{}
	if s == "" {
		return out, true
	}
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil || lo < 0 || lo >= CPUListMax {
			return nil, false
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil || hi < lo || hi >= CPUListMax {
				return nil, false
			}
		}
		if len(out)+hi-lo+1 > CPUListMax {
			return nil, false
		}
		for c := lo; c <= hi; c++ {
			out = append(out, c)
		}
	}
	return out, true
}

// SMTControl is /sys/devices/system/cpu/smt/control: on, off, forceoff,
// notsupported or notimplemented.
func (fs FS) SMTControl() (string, error) {
	return fs.word(sysCPU+"/smt/control", "on", "off", "forceoff", "notsupported", "notimplemented")
}

// SMTActive is /sys/devices/system/cpu/smt/active (0 or 1).
func (fs FS) SMTActive() (bool, error) {
	return fs.flag(sysCPU + "/smt/active")
}

// CPUIdleDriver is /sys/devices/system/cpu/cpuidle/current_driver
// ("acpi_idle", "intel_idle", "none").
func (fs FS) CPUIdleDriver() (string, error) {
	return fs.Attr(sysCPU + "/cpuidle/current_driver")
}

// CPUIdleStatesMax bounds the idle states listed for one CPU (the kernel's
// CPUIDLE_STATE_MAX is 10).
const CPUIdleStatesMax = 16

// CPUIdleState finds the idle state of cpu named name ("C2") in
// /sys/devices/system/cpu/cpu<cpu>/cpuidle/state<K>/name and returns K;
// -1 when no state has that name. cpupower idle-set -d 2 disables the
// state by index, so which state that is must be read from its name.
func (fs FS) CPUIdleState(cpu int, name string) (int, error) {
	dir := sysCPU + "/cpu" + strconv.Itoa(cpu) + "/cpuidle"
	es, more, err := fs.m.ReadDirMax(dir, CPUIdleStatesMax)
	if err != nil {
		return -1, readErr(dir, err)
	}
	if more {
		return -1, parseErr(dir, "more than "+strconv.Itoa(CPUIdleStatesMax)+" entries")
	}
	for _, e := range es {
		k, ok := strings.CutPrefix(e.Name(), "state")
		idx, err := strconv.Atoi(k)
		if !ok || err != nil || idx < 0 {
			continue
		}
		n, err := fs.Attr(dir + "/" + e.Name() + "/name")
		if errors.Is(err, ErrParse) {
			continue
		}
		if err != nil {
			return -1, err
		}
		if n == name {
			return idx, nil
		}
	}
	return -1, nil
}

// CPUIdleDisabled is cpu<cpu>/cpuidle/state<state>/disable (0 or 1).
func (fs FS) CPUIdleDisabled(cpu, state int) (bool, error) {
	return fs.flag(sysCPU + "/cpu" + strconv.Itoa(cpu) + "/cpuidle/state" + strconv.Itoa(state) + "/disable")
}

// CPUFreq is one file of /sys/devices/system/cpu/cpufreq/policy0
// (scaling_governor, scaling_driver): one word. Policy 0 stands for the
// node; a node whose policies differ shows only the first.
func (fs FS) CPUFreq(name string) (string, error) {
	return fs.Attr(sysCPU + "/cpufreq/policy0/" + name)
}

// CPUFreqBoost is /sys/devices/system/cpu/cpufreq/boost (0 or 1), the
// system-wide boost switch of acpi-cpufreq and amd-pstate.
func (fs FS) CPUFreqBoost() (bool, error) {
	return fs.flag(sysCPU + "/cpufreq/boost")
}

// PackageCPUs is the CPUs of cpu's package (socket):
// cpu<cpu>/topology/package_cpus_list ("0-63,128-191").
func (fs FS) PackageCPUs(cpu int) ([]int, error) {
	p := sysCPU + "/cpu" + strconv.Itoa(cpu) + "/topology/package_cpus_list"
	s, err := fs.Attr(p)
	if err != nil {
		return nil, err
	}
	l, ok := ParseCPUList(s)
	if !ok || len(l) == 0 {
		return nil, parseErr(p, "not a CPU range list")
	}
	return l, nil
}

// flag reads an attribute holding 0 or 1.
func (fs FS) flag(p string) (bool, error) {
	s, err := fs.Attr(p)
	if err != nil {
		return false, err
	}
	switch s {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, parseErr(p, "not 0 or 1")
}

// word reads an attribute holding one of the words.
func (fs FS) word(p string, words ...string) (string, error) {
	s, err := fs.Attr(p)
	if err != nil {
		return "", err
	}
	for _, w := range words {
		if s == w {
			return s, nil
		}
	}
	return "", parseErr(p, "not one of "+strings.Join(words, ", "))
}

// Present reports whether p exists (lstat: a link counts, its target is
// not followed; nothing is opened). Only a missing entry is false without
// an error.
func (fs FS) Present(p string) (bool, error) {
	_, err := fs.m.Lstat(p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, iofs.ErrNotExist):
		return false, nil
	}
	return false, readErr(p, err)
}
