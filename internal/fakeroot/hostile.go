package fakeroot

import (
	"os"
	"path/filepath"
	"strings"
)

// Marker is in every file of the host tree Hostile plants; a document of
// the hostile root that contains it was read through a link to the host.
// HostileVersion is the planted version number, for fields parsed as
// numbers.
const (
	Marker         = "PLANTEDMARK"
	HostileVersion = "4242.4242"
)

// Hostile builds, under dir, a host tree holding a planted ROCm machine
// (every file carries Marker) and a root whose every interesting path is a
// symbolic link into that tree: an absolute link to the host path, or a
// relative one with enough ".." to climb out of the root. A probe that
// resolves inside the root sees a machine with nothing installed; one that
// lets the kernel follow the links describes the planted host. It returns
// the root.
func Hostile(dir string) (string, error) {
	host := filepath.Join(dir, "host")
	root := filepath.Join(dir, "root")
	v := HostileVersion
	for name, data := range hostileFiles(v) {
		p := filepath.Join(host, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := writeFile(p, File{Data: []byte(data), Mode: 0o755, Size: -1}); err != nil {
			return "", err
		}
		if err := os.Chmod(p, 0o755); err != nil {
			return "", err
		}
	}
	// escape climbs from a link at depth d below the root to "/".
	escape := func(link string) string {
		return strings.Repeat("../", strings.Count(link, "/")+len(strings.Split(root, "/"))+2) + strings.TrimPrefix(host, "/")
	}
	for _, l := range hostileLinks(v) {
		p := filepath.Join(root, l.link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		t := filepath.Join(host, l.target)
		if !l.abs {
			t = escape(l.link) + "/" + l.target
		}
		if err := os.Symlink(t, p); err != nil {
			return "", err
		}
	}
	return root, nil
}

// hostileFiles are the host tree's files of Hostile, by path under the
// host, for the planted version v.
func hostileFiles(v string) map[string]string {
	return map[string]string{
		"opt/rocm/.info/version":                                     v + "-" + Marker,
		"opt/rocm/.info/version-dev":                                 v + "-" + Marker,
		"opt/rocm/bin/hipconfig":                                     "#!/bin/sh\necho " + Marker + "\n",
		"opt/rocm/lib/libamdhip64.so.6":                              Marker,
		"opt/rocm/lib/librccl.so.1":                                  Marker,
		"opt/rocm/lib/libMIOpen.so.1":                                Marker,
		"opt/rocm/include/hip/hip_version.h":                         "#define HIP_VERSION_MAJOR 4242\n#define HIP_VERSION_MINOR 4242\n#define HIP_VERSION_PATCH 4242\n#define HIP_VERSION_GITHASH \"" + Marker + "\"\n",
		"opt/rocm/include/miopen/version.h":                          "#define MIOPEN_VERSION_MAJOR 4242\n#define MIOPEN_VERSION_MINOR 4242\n#define MIOPEN_VERSION_PATCH 4242\n",
		"opt/rocm/include/rccl/rccl.h":                               "#define NCCL_MAJOR 4242\n#define NCCL_MINOR 4242\n#define NCCL_PATCH 4242\n",
		"opt/rocm/share/therock/therock_manifest.json":               `{"the_rock_commit": "` + Marker + `"}`,
		"etc/os-release":                                             "NAME=\"" + Marker + " OS\"\nID=" + strings.ToLower(Marker) + "\nVERSION_ID=\"" + v + "\"\nPRETTY_NAME=\"" + Marker + "\"\n",
		"etc/hostname":                                               Marker + "-host\n",
		"lib/x86_64-linux-gnu/libc.so.6":                             "\x7fELF GNU C Library (" + Marker + ") stable release version " + v + ".\n",
		"lib/aarch64-linux-gnu/libc.so.6":                            "\x7fELF GNU C Library (" + Marker + ") stable release version " + v + ".\n",
		"var/lib/dpkg/status":                                        "Package: amdgpu-dkms\nStatus: install ok installed\nVersion: 1:" + v + "-" + Marker + "\n\nPackage: rocm-core\nVersion: " + v + "-" + Marker + "\n",
		"sys/module/amdgpu/version":                                  v + "-" + Marker + "\n",
		"sys/class/kfd/kfd/topology/nodes/0/name":                    Marker + "\n",
		"sys/class/kfd/kfd/topology/nodes/1/properties":              "simd_count 4\nsimd_per_cu 4\ngfx_target_version 90402\ndomain 0\nlocation_id 768\ndrm_render_minor 128\n",
		"sys/class/drm/renderD128/device/product_name":               Marker + "\n",
		"sys/bus/pci/devices/0000-00-00.0/vendor":                    "0x1002\n",
		"proc/self/cgroup":                                           "0::/docker/" + Marker + "\n",
		"proc/1/cgroup":                                              "0::/docker/" + Marker + "\n",
		"proc/self/status":                                           "Name:\t" + Marker + "\nTracerPid:\t4242\n",
		"proc/sys/kernel/random/boot_id":                             Marker + "\n",
		"python/site-packages/torch/version.py":                      "__version__ = '" + v + "+" + Marker + "'\nhip = '" + v + "-" + Marker + "'\ngit_version = '" + Marker + "'\ndebug = False\ncuda = None\n",
		"python/site-packages/_rocm_sdk_core/.info/version":          v + "-" + Marker,
		"python/site-packages/rocm_sdk-" + v + ".dist-info/METADATA": "Name: rocm-sdk\nVersion: " + v + "+" + Marker + "\n",
		".dockerenv":                                                 Marker,
		"run/.containerenv":                                          "engine=\"" + Marker + "\"\n",
		"dev/kfd":                                                    Marker,
		"work/db/gfx942.db":                                          Marker,
	}
}

// hostileLink is one link of Hostile's root: link (under the root) to
// target (under the host), absolute or climbing out with "..".
type hostileLink struct {
	link, target string
	abs          bool
}

// hostileLinks are the links of Hostile's root, for the planted version v.
func hostileLinks(v string) []hostileLink {
	return []hostileLink{
		{"opt/rocm", "opt/rocm", true},
		{"opt/rocm-" + v, "opt/rocm", false},
		{"opt/rocm-7.2.1", "opt/rocm", true},
		{"etc/os-release", "etc/os-release", true},
		{"usr/lib/os-release", "etc/os-release", false},
		{"etc/hostname", "etc/hostname", false},
		{"lib", "lib", true},
		{"lib64", "lib/x86_64-linux-gnu", false},
		{"usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu", false},
		{"usr/lib64", "lib/x86_64-linux-gnu", true},
		{"var/lib/dpkg", "var/lib/dpkg", false},
		{"sys", "sys", true},
		{"proc", "proc", false},
		{"dev", "dev", true},
		{"run", "run", false},
		{".dockerenv", ".dockerenv", true},
		{"usr/lib/python3/dist-packages", "python/site-packages", true},
		{"usr/local/lib/python3.12/site-packages", "python/site-packages", false},
		{"usr/lib/python3.12/site-packages", "python/site-packages", true},
		{"work", "work", true},
	}
}
