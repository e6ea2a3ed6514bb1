package probe

import (
	"sort"
	"strconv"
	"strings"

	"aorta-probe/schema"
)

// collectAOTriton is aotriton (docs/python.md). Source: the
// libaotriton_v2.so* files and the aotriton.images directory in torch's
// native lib dir, with torch taken at the helper's aotriton import site; the
// chosen file is hashed here. Scope: process (which torch), filesystem (the
// files). installed_prefix is $AOTRITON_INSTALLED_PREFIX raw (scope: process
// env).
func collectAOTriton(s *state) schema.AOTriton {
	b := schema.AOTriton{InstalledPrefix: s.envPtr("AOTRITON_INSTALLED_PREFIX")}
	t, o := s.python().torchAt("aotriton")
	if !o.imported(s, "aotriton", "torch", "") {
		return b
	}
	if vm := t.VersionModule; vm != nil && vm.HIP == nil {
		return b // CPU or CUDA wheel
	}
	dir, ok := torchNativeLibDir(s, t)
	if !ok {
		d := t.fileDir()
		if d == "" {
			s.reason("aotriton: torch.__file__ unavailable")
			return b
		}
		dir = d + "/lib"
	}
	var cands []string
	entries, _ := s.root.ReadDir(dir) // glob: a missing or unreadable dir matches nothing
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "libaotriton_v2.so") {
			cands = append(cands, e.Name())
		}
	}
	sort.Strings(cands)
	b.BundledImagesDirPresent = s.root.IsDir(dir + "/aotriton.images")
	if len(cands) == 0 {
		s.reason("aotriton.bundled: no libaotriton_v2.so* in %s (custom PyTorch build with AOTriton disabled?)", dir)
		return b
	}
	b.BundledPresent = true
	chosen, version := pickAOTriton(cands)
	if version != nil {
		b.BundledVersion = version
	} else {
		s.reason("aotriton.bundled_version: no versioned filename in %s matching libaotriton_v2.so.MAJOR.MINOR.PATCH", dir)
	}
	path := dir + "/" + chosen
	if sum, err := s.sha256OfPath(path); err == nil {
		b.BundledLibHash = &sum
	} else {
		s.reason("aotriton.bundled_lib_hash: %s unreadable", path)
	}
	return b
}

// pickAOTriton chooses among sorted libaotriton_v2.so* names: the highest
// MAJOR.MINOR.PATCH of the names ending in libaotriton_v2.so.N.N.N, else
// the first name with no version.
func pickAOTriton(names []string) (string, *string) {
	best, bestV := "", []int(nil)
	for _, n := range names {
		v, ok := aotritonVersion(n)
		if !ok {
			continue
		}
		if bestV == nil || lessInts(bestV, v) {
			best, bestV = n, v
		}
	}
	if bestV == nil {
		return names[0], nil
	}
	return best, schema.Str(strconv.Itoa(bestV[0]) + "." + strconv.Itoa(bestV[1]) + "." + strconv.Itoa(bestV[2]))
}

// aotritonVersion matches libaotriton_v2\.so\.(\d+)\.(\d+)\.(\d+)$.
func aotritonVersion(name string) ([]int, bool) {
	const pre = "libaotriton_v2.so."
	i := strings.LastIndex(name, pre)
	if i < 0 {
		return nil, false
	}
	parts := strings.Split(name[i+len(pre):], ".")
	if len(parts) != 3 {
		return nil, false
	}
	v := make([]int, 3)
	for k, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		v[k] = n
	}
	return v, true
}

func lessInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
