package probe

import (
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// collectAMDGPUDriver is amdgpu_driver
// (docs/fields-process.md#amdgpu_driver-filesystem--host-kernel): the
// amdgpu-dkms or amdgpu-kmod package of the filesystem, the module modinfo
// describes, the KMD version the running kernel reports, and the KFD nodes.
func collectAMDGPUDriver(s *state) schema.AMDGPUDriver {
	d := schema.NotCapturedAMDGPUDriver()
	// The same read as rocm.kmd_version (collector.kmdVersion, done once):
	// this block does not wait for the rocm block, which may wait for the
	// ROCm roots and through them for the Python interpreter.
	d.KmdVersion = s.kmdVersion()
	d.KFDDevicePresent = s.root.Exists("/dev/kfd")
	d.KFDSysfsPresent = s.root.Exists("/sys/class/kfd")

	// The package query and the two modinfo runs (once per field, as the Python
	// probe does) are independent and run together.
	var pkg *amdgpuPackage
	_, haveModinfo := s.which("modinfo")
	s.parallel(
		func(s *state) { pkg = findAMDGPUPackage(s) },
		func(s *state) {
			if haveModinfo {
				d.ModuleVersion = modinfoField(s, "version")
			}
		},
		func(s *state) {
			if haveModinfo {
				d.ModuleSrcversion = modinfoField(s, "srcversion")
			}
		},
	)
	if pkg != nil {
		d.PackageName, d.PackageVersion = &pkg.name, &pkg.version
		d.PackageFullName, d.PackageManager = &pkg.fullName, &pkg.manager
	}
	if d.PackageVersion != nil || d.ModuleVersion != nil || d.ModuleSrcversion != nil ||
		d.KmdVersion != nil || d.KFDDevicePresent || d.KFDSysfsPresent {
		d.Status = "present"
	}
	if (d.ModuleVersion != nil || d.ModuleSrcversion != nil) && d.PackageVersion == nil {
		s.reason("amdgpu_driver.package_version: amdgpu module is loaded (modinfo metadata present) but no dpkg/rpm package (amdgpu-dkms/amdgpu-kmod) could be resolved")
	}
	return d
}

type amdgpuPackage struct{ name, version, fullName, manager string }

// amdgpuPackages are the package names findAMDGPUPackage asks for, in
// order (each as a prefix: NAME*).
var amdgpuPackages = []string{"amdgpu-dkms", "amdgpu-kmod"}

// findAMDGPUPackage queries dpkg then rpm for amdgpu-dkms, then both for
// amdgpu-kmod (docs/fields-process.md#amdgpu_driver-filesystem--host-kernel).
// The format strings carry real TAB and LF bytes and the glob is a literal
// argument: there is no shell.
func findAMDGPUPackage(s *state) *amdgpuPackage {
	cands := amdgpuPackages
	_, haveDpkg := s.which("dpkg-query")
	var known map[string]bool
	if haveDpkg {
		known = dpkgKnows(s.collector.dpkgStatus(), cands)
	}
	for _, cand := range cands {
		if haveDpkg && known[cand] {
			r := s.run(machine.Command{Argv: []string{"dpkg-query", "-W", "-f=${Package}\t${Version}\n", cand + "*"}, Timeout: machine.ShortTimeout})
			if r.Err == nil {
				for _, f := range packageLines(string(r.Stdout), 2) {
					if acceptPackage(f[0], f[1], cand) {
						return &amdgpuPackage{cand, f[1], f[0] + "=" + f[1], "dpkg"}
					}
				}
			}
		}
		if _, ok := s.which("rpm"); ok {
			r := s.run(machine.Command{Argv: []string{"rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\t%{ARCH}\n", cand + "*"}, Timeout: machine.ShortTimeout})
			if r.Err == nil {
				for _, f := range packageLines(string(r.Stdout), 3) {
					if acceptPackage(f[0], f[1], cand) {
						full := f[0] + "-" + f[1]
						if f[2] != "" {
							full += "." + f[2]
						}
						return &amdgpuPackage{cand, f[1], full, "rpm"}
					}
				}
			}
		}
	}
	return nil
}

// packageLines splits query output into lines of exactly n TAB-separated
// fields, each stripped; other lines are dropped.
func packageLines(out string, n int) [][]string {
	var rows [][]string
	for _, line := range pyfmt.Splitlines(out) {
		f := strings.Split(line, "\t")
		if len(f) != n {
			continue
		}
		for i := range f {
			f[i] = pyfmt.Strip(f[i])
		}
		rows = append(rows, f)
	}
	return rows
}

// acceptPackage is the package-name rule of amdgpu_driver
// (docs/fields-process.md#amdgpu_driver-filesystem--host-kernel): the
// candidate itself or a kernel-suffixed variant of it, never a firmware
// package.
func acceptPackage(name, version, cand string) bool {
	return name != "" && version != "" && !strings.Contains(name, "firmware") &&
		(name == cand || strings.HasPrefix(name, cand+"-"))
}

var modinfoLine = lazyre.New(`^([a-z_]+):\s*(.*)$`)

// modinfoField runs `modinfo amdgpu` and returns the first line's value for
// field, stripped
// (docs/fields-process.md#amdgpu_driver-filesystem--host-kernel).
func modinfoField(s *state, field string) *string {
	r := s.run(machine.Command{Argv: []string{"modinfo", "amdgpu"}, Timeout: machine.ShortTimeout})
	if r.Err != nil {
		return nil
	}
	return parseModinfo(string(r.Stdout), field)
}

func parseModinfo(out, field string) *string {
	for _, line := range pyfmt.Splitlines(out) {
		m := modinfoLine().FindStringSubmatch(line)
		if m == nil || m[1] != field {
			continue
		}
		v := pyfmt.Strip(m[2])
		if v == "" {
			return nil
		}
		return &v
	}
	return nil
}

// dpkgStatus is what one streamed pass over dpkg's status database
// (source.FS.DpkgStatus) tells its two readers: the names of amdgpu
// packages (dpkgKnows) and the first installed HIP runtime
// (hipRuntimePackage, rocm_installs).
type dpkgStatus struct {
	source.DpkgStatus
	// unknown: the database could not be read whole: missing,
	// unreadable, not a regular file, or larger than
	// source.DpkgStatusMax, before or while it was read.
	unknown bool
}

// readDpkgStatus streams dpkg's status database under root once.
func readDpkgStatus(root *machine.FS) dpkgStatus {
	st, err := source.NewFS(root).DpkgStatus(amdgpuPackages, hipRuntimePackage)
	return dpkgStatus{DpkgStatus: st, unknown: err != nil}
}

// dpkgKnows reports, for each candidate (one of amdgpuPackages), whether
// dpkg's status database (the file dpkg-query -W reads) may have a package
// whose name starts with it: true when a Package: line does, or for every
// candidate when the database is unknown (dpkg-query then decides). Where
// it is known not to, the query's answer is known to be empty, and the
// 10–20 ms it costs are saved.
func dpkgKnows(st dpkgStatus, cands []string) map[string]bool {
	known := map[string]bool{}
	for _, c := range cands {
		if st.unknown {
			known[c] = true
			continue
		}
		for _, name := range st.Names {
			if strings.HasPrefix(name, c) {
				known[c] = true
				break
			}
		}
	}
	return known
}

// dpkgStatus is dpkg's status database of the probed root, streamed once
// per collection (readDpkgStatus) whichever block asks first.
func (c *collector) dpkgStatus() dpkgStatus {
	if c.dpkg == nil { // a partial collector some tests build
		return readDpkgStatus(c.root)
	}
	return c.dpkg()
}
