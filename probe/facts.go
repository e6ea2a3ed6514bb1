package probe

import "sync"

// facts are the values of one collection computed once, by their first
// user, whichever probe that is: every probe that asks after it gets the
// same answer, so the document cannot depend on which asked first.
type facts struct {
	// rocm resolves the ROCm roots once (docs/rocm-roots.md) and waits for
	// the answer; rootsDone is closed once it is known (rocm_roots.go).
	rocm      func() rocmRoots
	rootsDone chan struct{}
	// rootsInterrupted: the roots were resolved without the interpreter's
	// answer because the collection ended first.
	rootsInterrupted bool
	// sites is the Python search path as the filesystem shows it
	// (pythonSiteDirs), computed once.
	sites func() []string
	// distInfos are the *.dist-info entries of those directories, listed
	// once (listDistInfos).
	distInfos func() []siteDistInfos
	// dirLists are the directory listings libHash asks for, each read once
	// (dirNames).
	dirMu    sync.Mutex
	dirLists map[string]func() ([]string, error)
	// kmdVersion is read-text of /sys/module/amdgpu/version, read once:
	// rocm.kmd_version, which amdgpu_driver.kmd_version copies.
	kmdVersion func() *string
	// dpkg is dpkg's status database, read once (dpkg_status.go):
	// amdgpu_driver and rocm_installs both consult it.
	dpkg func() dpkgStatus
	// ldCache is where the root's /etc/ld.so.cache sends each of
	// rocm_installs' loaderLibraries, read once (while the Python helper
	// runs: prefetch).
	ldCache func() map[string]string
	// runtimeType is runtime_context.type
	// (docs/fields-process.md#runtime_context-process), evaluated once
	// (runtime_context.go).
	runtimeType func() string
	// python is the one Python helper run of the collection
	// (python_bridge.go), started by its first user.
	python func() *pyFacts
	// hashes is the one file-hash pool of the run (hash.go).
	hashes *hashPool
}

// setFacts makes c's facts, each computed when first asked for, from c's
// machine (runEnv).
func (c *collector) setFacts() {
	opt := c.opt
	c.hashes = newHashPool(opt.Workers)
	c.sites = sync.OnceValue(func() []string { return pythonSiteDirs(c.root, opt.Env) })
	c.distInfos = sync.OnceValue(func() []siteDistInfos { return listDistInfos(c.root, c.sites()) })
	c.kmdVersion = sync.OnceValue(func() *string { return c.root.ReadText("/sys/module/amdgpu/version") })
	c.dpkg = sync.OnceValue(func() dpkgStatus { return readDpkgStatus(c.root) })
	c.ldCache = sync.OnceValue(func() map[string]string { return readLDCache(c.root) })
	c.runtimeType = sync.OnceValue(func() string { return detectRuntimeType(&state{collector: c}) })
	c.python = sync.OnceValue(func() *pyFacts { return runPythonBridge(c) })
	// Root discovery runs once, started before any probe
	// (docs/rocm-roots.md). Only when neither the environment, /opt/rocm nor
	// the filesystem's site-packages answer does it need the interpreter's
	// find_spec; the probes that need no roots do not wait for that.
	c.rootsDone = make(chan struct{})
	c.rocm = sync.OnceValue(func() rocmRoots {
		defer close(c.rootsDone)
		return resolveROCmRoots(c.root, opt.Env, opt.Cwd, c.sites, func() []string {
			sites := interpreterSites(c)
			c.rootsInterrupted = c.python().interrupted
			return sites
		})
	})
}

// prefetch starts the facts a default run waits for longest before the
// probes start: the Python helper (docs/python.md, "Overlap") and the
// roots, and, when rocm_installs will run after every block, its loader
// cache, read while the Python helper runs. Under low limits nothing is
// started ahead: the first probe that needs a fact computes it.
func (c *collector) prefetch() {
	if c.opt.Workers < unbounded {
		return
	}
	go c.python()
	go c.rocm()
	if !c.opt.NoProvenance {
		go c.ldCache()
	}
}
