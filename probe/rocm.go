package probe

import (
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// collectROCm is the rocm block
// (docs/fields-process.md#rocm-filesystem-kmd_version-host-kernel).
func collectROCm(s *state) schema.ROCm {
	r := schema.ROCm{Root: s.rocm().core, LibRoot: s.rocm().lib, RootSource: s.rocm().source, Layout: s.rocm().layout}
	tr, _ := await(s, theRockBlock)

	versionFile := s.rocm().core + "/.info/version"
	source := ""
	switch {
	case set(&r.Version, s.root.ReadMarker(versionFile)):
		source = "version_file"
	case tr.manifest != nil && set(&r.Version, manifestString(tr.manifest, "rocm_version")):
		source = "therock_manifest"
	case set(&r.Version, distVersion(s, "rocm")):
		source = "pip:rocm"
	case set(&r.Version, distVersion(s, "rocm-sdk-core")):
		source = "pip:rocm-sdk-core"
	case set(&r.Version, torchROCmVersion(s)):
		source = "torch"
	}
	if source != "" {
		r.VersionSource = &source
	}

	r.VersionDev = s.root.ReadMarker(s.rocm().core + "/.info/version-dev")
	if r.VersionDev == nil && tr.manifest != nil {
		r.VersionDev = manifestString(tr.manifest, "rocm_package_version")
	}
	r.KmdVersion = s.kmdVersion()

	if r.Version == nil {
		s.reason("rocm.version: no version from %s, TheRock manifest, pip metadata, or torch", versionFile)
	}
	if r.VersionDev == nil {
		s.reason("rocm.version_dev: %s/.info/version-dev missing, empty, or unreadable", s.rocm().core)
	}
	if r.KmdVersion == nil {
		s.reason("rocm.kmd_version: /sys/module/amdgpu/version missing, empty, or unreadable")
	}
	return r
}

// set stores v into *dst and reports whether it was non-nil.
func set(dst **string, v *string) bool {
	*dst = v
	return v != nil
}

// distVersion is importlib.metadata.version(name) without an interpreter:
// the Version of the first <name>-<ver>.dist-info on the Python search path
// (pythonSiteDirs), with distribution names normalised as PEP 503 does.
func distVersion(s *state, name string) *string {
	if v, known := pyDistVersion(s, name); known {
		return v // the workload interpreter answered (python_rocm.go)
	}
	want := normalizeDist(name)
	for _, sd := range s.distInfos() {
		for _, entry := range sd.names {
			dn, _ := strings.CutSuffix(entry, ".dist-info")
			dname, dver, _ := strings.Cut(dn, "-")
			if normalizeDist(dname) != want {
				continue
			}
			if meta := s.root.ReadText(sd.site + "/" + entry + "/METADATA"); meta != nil {
				for _, line := range strings.Split(*meta, "\n") {
					if v, ok := strings.CutPrefix(line, "Version:"); ok {
						if v = pyfmt.Strip(v); v != "" {
							return &v
						}
					}
				}
			}
			if dver = pyfmt.Strip(dver); dver != "" {
				return &dver
			}
		}
	}
	return nil
}

// siteDistInfos is a site directory and its *.dist-info entries, in name
// order.
type siteDistInfos struct {
	site  string
	names []string
}

// listDistInfos lists the *.dist-info entries of each of sites
// (collector.distInfos, once per collection: the rocm version chain asks
// distVersion for two names, and a site-packages may hold thousands of
// entries).
func listDistInfos(root *machine.FS, sites []string) []siteDistInfos {
	var out []siteDistInfos
	for _, site := range sites {
		es, err := root.ReadDir(site)
		if err != nil {
			continue
		}
		sd := siteDistInfos{site: site}
		for _, e := range es {
			if strings.HasSuffix(e.Name(), ".dist-info") {
				sd.names = append(sd.names, e.Name())
			}
		}
		out = append(out, sd)
	}
	return out
}

var distSep = lazyre.New(`[-_.]+`)

func normalizeDist(n string) string { return distSep().ReplaceAllString(strings.ToLower(n), "-") }

var torchROCmSegment = lazyre.New(`\+rocm([0-9][0-9A-Za-z.\-]*)`)

// torchROCmVersion is step 4 of the version chain without importing torch:
// torch/version.py on the Python search path holds __version__ and hip.
func torchROCmVersion(s *state) *string {
	if v, known := pyTorchROCmVersion(s); known {
		return v // the workload interpreter answered (python_rocm.go)
	}
	for _, site := range s.sites() {
		text := s.root.ReadText(site + "/torch/version.py")
		if text == nil {
			continue
		}
		vars := pyAssignments(*text)
		if m := torchROCmSegment().FindStringSubmatch(vars["__version__"]); m != nil {
			return &m[1]
		}
		if hip := pyfmt.Strip(vars["hip"]); hip != "" {
			return &hip
		}
		return nil
	}
	return nil
}

var pyAssign = lazyre.New(`(?m)^([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*[A-Za-z_.\[\], |]+)?=\s*['"]([^'"\n]*)['"]`)

// pyAssignments reads the simple NAME = 'value' lines of a generated
// Python module such as torch/version.py.
func pyAssignments(text string) map[string]string {
	out := map[string]string{}
	for _, m := range pyAssign().FindAllStringSubmatch(text, -1) {
		if _, dup := out[m[1]]; !dup {
			out[m[1]] = m[2]
		}
	}
	return out
}
