package probe

import (
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// loaderLibraries are the libraries whose resolution rocm_installs reports,
// in order: the HIP runtime and the two GEMM libraries, where two installs
// on one node most often mean other numerics.
var loaderLibraries = []string{"libamdhip64.so", "librocblas.so", "libhipblaslt.so"}

// rocmInstall is one install found, before it is written out.
type rocmInstall struct {
	schema.ROCmInstall
	real string // the directory with every link resolved: the identity
}

// collectROCmInstalls is probe_provenance.rocm_installs
// (docs/rocm-roots.md#every-install-rocm_installs). It runs after the
// blocks are assembled and reads only files (no command): the rocm block
// says which install it describes (rocm.root), the hip block gives the
// hipconfig version. Sources, in the order the installs are listed:
// $ROCM_PATH and $ROCM_HOME, /opt/rocm, /opt/rocm-* (by name), a
// libamdhip64 of the distribution under /usr/lib, and _rocm_sdk_core
// packages in the site directories of docs/rocm-roots.md (plus the wheel
// root the rocm block resolved through the interpreter).
func collectROCmInstalls(c *collector, snap *schema.Snapshot) schema.ROCmInstalls {
	root := c.root
	found := findInstalls(c, snap.ROCm)
	out := schema.ROCmInstalls{Installs: []schema.ROCmInstall{}, Loader: []schema.LoaderResolution{}}
	var described *rocmInstall
	if r := snap.ROCm; r.RootSource != "none" && r.Root != "" {
		described = found.byReal[root.Realpath(r.Root)]
	}
	hipconfig, _ := c.which("hipconfig")
	for _, in := range found.list {
		installVersion(c, in, hipconfig, snap.HIP.Version)
		if in == described {
			in.Described = true
			out.Described = &in.Root
		}
	}
	cache := c.ldCache()
	for _, lib := range loaderLibraries {
		out.Loader = append(out.Loader, resolveLibrary(c, cache, lib, found.list))
	}
	for _, in := range found.list {
		out.Installs = append(out.Installs, in.ROCmInstall)
	}
	return out
}

// installSet is the installs found, in the order found, each once by its
// directory with every link resolved.
type installSet struct {
	root   *machine.FS
	list   []*rocmInstall
	byReal map[string]*rocmInstall
}

// add lists dir as an install of kind, or, when its real directory is
// listed already, adds dir (or alias, when set: "$ROCM_PATH") to that
// install's aliases.
func (f *installSet) add(dir, kind, alias string) {
	real := f.root.Realpath(dir)
	if in := f.byReal[real]; in != nil {
		name := dir
		if alias != "" {
			name = alias
		}
		if name != in.Root && !slices.Contains(in.Aliases, name) {
			in.Aliases = append(in.Aliases, name)
		}
		return
	}
	in := &rocmInstall{ROCmInstall: schema.ROCmInstall{Kind: kind, Root: dir, Aliases: []string{}}, real: real}
	if alias != "" {
		in.Aliases = append(in.Aliases, alias)
	}
	f.byReal[real] = in
	f.list = append(f.list, in)
}

// findInstalls is every install of the root, in collectROCmInstalls'
// order of sources; rocm is the rocm block, whose wheel root the
// interpreter may have found.
func findInstalls(c *collector, rocm schema.ROCm) *installSet {
	root := c.root
	found := &installSet{root: root, byReal: map[string]*rocmInstall{}}
	for _, name := range []string{"ROCM_PATH", "ROCM_HOME"} {
		envInstall(c, found, name)
	}
	if classicInstall(root, "/opt/rocm") {
		found.add("/opt/rocm", classicKind(root, "/opt/rocm", "opt_rocm"), "")
	}
	if names, err := root.ReadDirNames("/opt"); err == nil {
		sort.Strings(names)
		for _, n := range names {
			if d := "/opt/" + n; strings.HasPrefix(n, "rocm-") && classicInstall(root, d) {
				found.add(d, classicKind(root, d, "opt_rocm"), "")
			}
		}
	}
	if distroHIP(root) != "" {
		found.add("/usr", "distro", "")
	}
	sites := c.sites()
	if rocm.Layout == "wheel" && rocm.RootSource != "none" && rocm.Root != "" {
		sites = append(sites, path.Dir(rocm.Root)) // found by the interpreter
	}
	for _, site := range sites {
		if core := site + "/_rocm_sdk_core"; root.IsDir(core) {
			found.add(core, "wheel", "")
		}
	}
	return found
}

// envInstall adds the install the environment variable name (ROCM_PATH,
// ROCM_HOME) names, aliased "$name": a wheel's _rocm_sdk_core beside a
// _rocm_sdk_* directory, or a classic tree. A relative value is taken
// from the working directory (none known: skipped).
func envInstall(c *collector, found *installSet, name string) {
	root := c.root
	v, _ := c.opt.Env(name)
	if v == "" {
		return
	}
	if !strings.HasPrefix(v, "/") {
		if c.opt.Cwd == "" {
			return
		}
		v = c.opt.Cwd + "/" + v
	}
	v = pyNormpath(v)
	if base := path.Base(v); strings.HasPrefix(base, "_rocm_sdk_") {
		if core := path.Dir(v) + "/_rocm_sdk_core"; root.IsDir(core) {
			found.add(core, "wheel", "$"+name)
		}
		return
	}
	if classicInstall(root, v) {
		found.add(v, classicKind(root, v, locationKind(v)), "$"+name)
	}
}

// locationKind is the kind a directory named by $ROCM_PATH has by its
// place: /opt/rocm[-*] is opt_rocm, /usr distro, anything else rocm_path.
func locationKind(dir string) string {
	switch {
	case dir == "/opt/rocm" || strings.HasPrefix(dir, "/opt/rocm-") && !strings.Contains(dir[len("/opt/rocm-"):], "/"):
		return "opt_rocm"
	case dir == "/usr":
		return "distro"
	}
	return "rocm_path"
}

// classicInstall is a directory that holds .info, bin or lib: what
// ROCM_PATH may name (docs/rocm-roots.md, step 1).
func classicInstall(root *machine.FS, dir string) bool {
	if !root.IsDir(dir) {
		return false
	}
	for _, sub := range []string{".info", "bin", "lib"} {
		if root.Exists(dir + "/" + sub) {
			return true
		}
	}
	return false
}

// classicKind is therock for a tree with TheRock's manifest, else kind.
func classicKind(root *machine.FS, dir, kind string) string {
	if root.IsRegular(dir + "/share/therock/therock_manifest.json") {
		return "therock"
	}
	return kind
}

// distroLibDirs are where a distribution puts libraries: the multiarch
// directory of this architecture (Debian, Ubuntu), lib64 (Fedora), lib.
func distroLibDirs() []string {
	dirs := []string{"/usr/lib64", "/usr/lib"}
	switch runtime.GOARCH {
	case "amd64":
		dirs = append([]string{"/usr/lib/x86_64-linux-gnu"}, dirs...)
	case "arm64":
		dirs = append([]string{"/usr/lib/aarch64-linux-gnu"}, dirs...)
	}
	return dirs
}

// distroHIP is the distribution's HIP runtime under /usr: the first of
// libamdhip64.so and its sonames .so.0 to .so.9 in distroLibDirs, or "".
func distroHIP(root *machine.FS) string {
	for _, d := range distroLibDirs() {
		if p := libraryIn(root, d, "libamdhip64.so"); p != "" {
			return p
		}
	}
	return ""
}

// libraryIn is dir/name when it exists, else the highest soname
// dir/name.N (N from 9 down to 0), else "".
func libraryIn(root *machine.FS, dir, name string) string {
	if p := dir + "/" + name; root.Exists(p) {
		return p
	}
	for n := 9; n >= 0; n-- {
		if p := dir + "/" + name + "." + strconv.Itoa(n); root.Exists(p) {
			return p
		}
	}
	return ""
}

// installVersion fills the version of one install, first source that
// answers: a wheel's METADATA; <root>/.info/version; TheRock's manifest;
// for /usr the dpkg database; hip.version when the hipconfig on PATH is
// <root>/bin/hipconfig; the version in the real name of the HIP runtime.
func installVersion(c *collector, in *rocmInstall, hipconfig string, hipVersion *string) {
	root := c.root
	set := func(v, source string, pkg *string) {
		in.Version, in.VersionSource, in.Package = &v, &source, pkg
	}
	if in.Kind == "wheel" {
		if name, v := wheelVersion(root, path.Dir(in.Root)); v != "" {
			p := name + "=" + v
			set(v, "wheel_metadata", &p)
			return
		}
	}
	if v := root.ReadText(in.Root + "/.info/version"); v != nil {
		set(*v, "info_version", nil)
		return
	}
	if text := root.ReadText(in.Root + "/share/therock/therock_manifest.json"); text != nil {
		if m, err := pyjson.Decode(*text); err == nil {
			if obj, ok := m.(pyjson.Map[any]); ok {
				if v := manifestString(obj, "rocm_version"); v != nil {
					set(*v, "therock_manifest", nil)
					return
				}
			}
		}
	}
	if in.Kind == "distro" {
		if st := c.dpkgStatus(); st.RuntimeVersion != "" {
			ver := st.RuntimeVersion
			p := st.RuntimeName + "=" + ver
			set(debianUpstream(ver), "dpkg", &p)
			return
		}
	}
	if hipVersion != nil && hipconfig != "" && path.Dir(hipconfig) == in.Root+"/bin" {
		set(*hipVersion, "hipconfig", nil)
		return
	}
	lib := libraryIn(root, in.Root+"/lib", "libamdhip64.so")
	if in.Kind == "distro" {
		lib = distroHIP(root)
	}
	if lib != "" {
		base := path.Base(root.Realpath(lib))
		if v, ok := strings.CutPrefix(base, "libamdhip64.so."); ok && strings.Count(v, ".") >= 1 {
			set(v, "library_name", nil)
		}
	}
}

// wheelVersion is the Version of rocm-sdk-core's dist-info in site, with
// the distribution's name, or "".
func wheelVersion(root *machine.FS, site string) (name, version string) {
	names, err := root.ReadDirNames(site)
	if err != nil {
		return "", ""
	}
	sort.Strings(names)
	for _, n := range names {
		dn, ok := strings.CutSuffix(n, ".dist-info")
		if !ok {
			continue
		}
		dname, dver, _ := strings.Cut(dn, "-")
		if normalizeDist(dname) != "rocm-sdk-core" {
			continue
		}
		if meta := root.ReadText(site + "/" + n + "/METADATA"); meta != nil {
			for _, line := range strings.Split(*meta, "\n") {
				if v, ok := strings.CutPrefix(line, "Version:"); ok {
					if v = strings.TrimSpace(v); v != "" {
						return "rocm-sdk-core", v
					}
				}
			}
		}
		if dver != "" {
			return "rocm-sdk-core", dver
		}
	}
	return "", ""
}

// hipRuntimePackage: libamdhip64-5, libamdhip64-6 (not -dev), or
// hip-runtime-amd.
func hipRuntimePackage(name string) bool {
	if name == "hip-runtime-amd" {
		return true
	}
	n, ok := strings.CutPrefix(name, "libamdhip64-")
	if !ok || n == "" {
		return false
	}
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// debianUpstream is the upstream part of a Debian version: without the
// epoch (1:) and the Debian revision (-8).
func debianUpstream(v string) string {
	if _, rest, ok := strings.Cut(v, ":"); ok {
		v = rest
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	return v
}

// resolveLibrary is where the dynamic loader would find lib: the first
// directory of $LD_LIBRARY_PATH holding it (or its highest soname), else
// the first entry of /etc/ld.so.cache for this architecture named lib,
// else one named lib.N…, else /lib, /usr/lib (and their lib64 twins).
func resolveLibrary(c *collector, cache map[string]string, lib string, installs []*rocmInstall) schema.LoaderResolution {
	res := schema.LoaderResolution{Library: lib}
	hit := func(p, via string) schema.LoaderResolution {
		res.Path, res.Via = &p, &via
		res.Install = installOf(c.root, p, installs)
		return res
	}
	if v, _ := c.opt.Env("LD_LIBRARY_PATH"); v != "" {
		for _, d := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ';' }) {
			if !strings.HasPrefix(d, "/") {
				if c.opt.Cwd == "" {
					continue
				}
				d = c.opt.Cwd + "/" + d
			}
			if p := libraryIn(c.root, path.Clean(d), lib); p != "" {
				return hit(p, "LD_LIBRARY_PATH")
			}
		}
	}
	if p := cache[lib]; p != "" {
		return hit(p, "ld.so.cache")
	}
	for _, d := range []string{"/lib64", "/usr/lib64", "/lib", "/usr/lib"} {
		if p := libraryIn(c.root, d, lib); p != "" {
			return hit(p, "default_dirs")
		}
	}
	return res
}

// readLDCache is where the probed root's /etc/ld.so.cache sends each of
// loaderLibraries (source.LDCacheFind); empty when it is missing, too
// large or not a cache.
func readLDCache(root *machine.FS) map[string]string {
	m, _ := source.NewFS(root).LDCache(loaderLibraries)
	return m
}

// installOf is the root of the install holding the library file p (as
// named or with its links resolved), or null.
func installOf(root *machine.FS, p string, installs []*rocmInstall) *string {
	real := root.Realpath(p)
	for _, cand := range []string{p, real} {
		for _, in := range installs {
			if in.Kind == "distro" {
				if distroLibPath(cand) {
					return &in.Root
				}
				continue
			}
			for _, r := range append([]string{in.Root, in.real}, in.Aliases...) {
				if strings.HasPrefix(r, "/") && strings.HasPrefix(cand, r+"/") {
					return &in.Root
				}
			}
		}
	}
	return nil
}

// distroLibPath: p lies directly in /lib, /lib64, /usr/lib, /usr/lib64 or
// a multiarch directory under /lib or /usr/lib (x86_64-linux-gnu).
func distroLibPath(p string) bool {
	dir := path.Dir(p)
	switch dir {
	case "/lib", "/lib64", "/usr/lib", "/usr/lib64":
		return true
	}
	parent := path.Dir(dir)
	return (parent == "/lib" || parent == "/usr/lib") && strings.Contains(path.Base(dir), "-linux-")
}
