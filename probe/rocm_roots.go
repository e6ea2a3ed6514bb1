package probe

import (
	"path/filepath"
	"sort"
	"strings"

	"aorta-probe/internal/machine"
)

// rocmRoots are the three ROCm roots of docs/rocm-roots.md: core (bin, .info,
// share/therock), lib (lib/, share/miopen) and inc (include/). On a classic
// install all three are /opt/rocm; on a TheRock wheel install they are the
// sibling packages _rocm_sdk_core, _rocm_sdk_libraries and _rocm_sdk_devel.
type rocmRoots struct {
	core, lib, inc string
	source         string // ROCM_PATH | ROCM_HOME | opt_rocm | import:_rocm_sdk_core | none
	layout         string // classic | wheel
}

func (r rocmRoots) manifestPath() string {
	return r.core + "/share/therock/therock_manifest.json"
}

func classicRoots(dir, source string) rocmRoots {
	return rocmRoots{core: dir, lib: dir, inc: dir, source: source, layout: "classic"}
}

// resolveROCmRoots is root discovery (docs/rocm-roots.md): $ROCM_PATH, then
// $ROCM_HOME, then a usable /opt/rocm, then a _rocm_sdk_core package on the
// Python search path, else /opt/rocm with source "none". It never fails.
//
// Step 3 asks each source of site directories in turn and stops at the
// first that holds _rocm_sdk_core: the filesystem's site-packages first
// (pythonSiteDirs, no process), then the workload interpreter's find_spec
// (which waits for the Python helper).
func resolveROCmRoots(root *machine.FS, env func(string) (string, bool), cwd string, sites ...func() []string) rocmRoots {
	for _, name := range []string{"ROCM_PATH", "ROCM_HOME"} {
		v, _ := env(name)
		if v == "" {
			continue
		}
		if !strings.HasPrefix(v, "/") {
			if cwd == "" {
				continue // deleted cwd: the candidate is skipped
			}
			v = cwd + "/" + v
		}
		if r, ok := rootsFromCandidate(root, pyNormpath(v), name); ok {
			return r
		}
	}
	if usableOptROCm(root) {
		return classicRoots("/opt/rocm", "opt_rocm")
	}
	for _, source := range sites {
		for _, site := range source() {
			if r, ok := wheelRoots(root, site); ok {
				r.source = "import:_rocm_sdk_core"
				return r
			}
		}
	}
	return classicRoots("/opt/rocm", "none")
}

// rootsFromCandidate interprets one explicit ROCM_PATH/ROCM_HOME value
// (docs/rocm-roots.md, step 1).
func rootsFromCandidate(root *machine.FS, cand, source string) (rocmRoots, bool) {
	if strings.HasPrefix(filepath.Base(cand), "_rocm_sdk_") {
		if r, ok := wheelRoots(root, filepath.Dir(cand)); ok {
			r.source = source
			return r, true
		}
		if root.IsDir(cand) {
			return rocmRoots{core: cand, lib: cand, inc: cand, source: source, layout: "wheel"}, true
		}
		return rocmRoots{}, false
	}
	if root.IsDir(cand) {
		for _, sub := range []string{".info", "bin", "lib"} {
			if root.Exists(cand + "/" + sub) {
				return classicRoots(cand, source), true
			}
		}
	}
	return rocmRoots{}, false
}

// wheelRoots builds wheel roots from a site directory (docs/rocm-roots.md).
func wheelRoots(root *machine.FS, site string) (rocmRoots, bool) {
	core := site + "/_rocm_sdk_core"
	if !root.IsDir(core) {
		return rocmRoots{}, false
	}
	r := rocmRoots{core: core, lib: core, inc: core, layout: "wheel"}
	if d := site + "/_rocm_sdk_libraries"; root.IsDir(d) {
		r.lib = d
	}
	if d := site + "/_rocm_sdk_devel"; root.IsDir(d) {
		r.inc = d
	}
	return r, true
}

// usableOptROCm is the strict autodetect test of step 2 (docs/rocm-roots.md):
// /opt/rocm is a directory and .info/version or .info/version-dev reads as
// a marker (readMarker: non-blank, UTF-8, first 4096 bytes), or lib/ is a
// directory. A bin-only shim, or one whose only marker is blank or
// unreadable, does not count.
func usableOptROCm(root *machine.FS) bool {
	const dir = "/opt/rocm"
	if !root.IsDir(dir) {
		return false
	}
	return root.ReadMarker(dir+"/.info/version") != nil ||
		root.ReadMarker(dir+"/.info/version-dev") != nil ||
		root.IsDir(dir+"/lib")
}

// pythonSiteDirs is the Go substitute for the Python import search of Step 3
// of docs/rocm-roots.md: a static binary has no interpreter, so it looks
// where the workload interpreter's sys.path would: $PYTHONPATH entries first,
// then the site-packages of $VIRTUAL_ENV and $CONDA_PREFIX, of the python3
// and python found on $PATH, and of the system prefixes /usr/local and /usr.
// (docs/rocm-roots.md records this choice.)
func pythonSiteDirs(root *machine.FS, env func(string) (string, bool)) []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" && !seen[d] && root.IsDir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	if v, _ := env("PYTHONPATH"); v != "" {
		for _, d := range filepath.SplitList(v) {
			if filepath.IsAbs(d) {
				add(filepath.Clean(d))
			}
		}
	}
	var prefixes []string
	for _, name := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v, _ := env(name); filepath.IsAbs(v) {
			prefixes = append(prefixes, filepath.Clean(v))
		}
	}
	for _, py := range []string{"python3", "python"} {
		for _, d := range machine.SearchPath(env) {
			if root.IsRegular(d + "/" + py) {
				prefixes = append(prefixes, filepath.Dir(d))
				break
			}
		}
	}
	prefixes = append(prefixes, "/usr/local", "/usr")
	for _, p := range prefixes {
		for _, lib := range []string{"lib", "lib64"} {
			vers, _ := root.ReadDir(p + "/" + lib)
			var names []string
			for _, e := range vers {
				if strings.HasPrefix(e.Name(), "python3") {
					names = append(names, e.Name())
				}
			}
			// Newest interpreter first: python3.12 before python3.9.
			sort.Slice(names, func(i, j int) bool { return pyVersionLess(names[j], names[i]) })
			for _, n := range names {
				add(p + "/" + lib + "/" + n + "/site-packages")
				add(p + "/" + lib + "/" + n + "/dist-packages")
			}
		}
		add(p + "/lib/python3/dist-packages")
	}
	return dirs
}

// pyVersionLess orders "python3.9" before "python3.12".
func pyVersionLess(a, b string) bool {
	minor := func(s string) int {
		n := 0
		_, rest, _ := strings.Cut(s, ".")
		for _, c := range rest {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	if minor(a) != minor(b) {
		return minor(a) < minor(b)
	}
	return a < b
}

// pyNormpath is Python's posixpath.normpath: it collapses ".", ".." and
// repeated slashes like filepath.Clean, but keeps exactly two leading
// slashes, as POSIX allows ("//x" stays "//x", "///x" becomes "/x").
func pyNormpath(p string) string {
	lead := ""
	if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
		lead = "/"
	}
	return lead + filepath.Clean(p)
}

func filepathIsAbs(p string) bool { return filepath.IsAbs(p) }
