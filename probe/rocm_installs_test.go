package probe

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/internal/testtree"
	"aorta-probe/schema"
)

// installsRoot builds a machine root with every kind of install
// (docs/rocm-roots.md#every-install-rocm_installs): /opt/rocm linking to
// /opt/rocm-6.4.1, /opt/rocm-7.0.0 named by $ROCM_PATH, a TheRock tarball
// in /opt/rocm-7.9.0, Debian's HIP 5.2 under /usr with its dpkg record, a
// ROCm wheel in a venv, and an ld.so.cache naming the /usr and /opt/rocm
// libraries.
func installsRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	multi := distroLibDirs()[0]
	files := map[string]string{
		"opt/rocm-6.4.1/.info/version":                                              "6.4.1-120\n",
		"opt/rocm-6.4.1/lib/libamdhip64.so.6":                                       "",
		"opt/rocm-6.4.1/lib/librocblas.so.4":                                        "",
		"opt/rocm-7.0.0/.info/version":                                              "7.0.0\n",
		"opt/rocm-7.0.0/lib/libhipblaslt.so.1":                                      "",
		"opt/rocm-7.9.0/bin/amdclang":                                               "",
		"opt/rocm-7.9.0/share/therock/therock_manifest.json":                        `{"rocm_version": "7.9.0rc1"}`,
		"opt/rocmish/lib/x":                                                         "", // not /opt/rocm-*: never listed
		multi[1:] + "/libamdhip64.so.5.2.21153":                                     "",
		"var/lib/dpkg/status":                                                       "Package: libamdhip64-dev\nStatus: install ok installed\nVersion: 5.2.3-8\n\nPackage: libamdhip64-5\nStatus: install ok installed\nVersion: 5.2.3-8\n\n",
		"venv/lib/python3.12/site-packages/_rocm_sdk_core/bin/x":                    "",
		"venv/lib/python3.12/site-packages/rocm_sdk_core-7.10.0.dist-info/METADATA": "Name: rocm-sdk-core\nVersion: 7.10.0\n",
	}
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"opt/rocm":                          "/opt/rocm-6.4.1",
		multi[1:] + "/libamdhip64.so.5":     "libamdhip64.so.5.2.21153",
		"opt/rocm-6.4.1/lib/libamdhip64.so": "libamdhip64.so.6",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	arch := source.LDCacheArch()
	cache := testtree.LDCache("new", binary.LittleEndian, []testtree.LDCacheEntry{
		{Name: "librocblas.so.4", Path: "/opt/rocm/lib/librocblas.so.4", Flags: arch},
		{Name: "libamdhip64.so.6", Path: "/opt/rocm/lib/libamdhip64.so.6", Flags: arch ^ 0x0100}, // another architecture
		{Name: "libamdhip64.so.5", Path: multi + "/libamdhip64.so.5", Flags: arch},
	})
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "etc/ld.so.cache"), cache, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestROCmInstalls(t *testing.T) {
	if source.LDCacheArch() == -1 {
		t.Skip("no ld.so.cache architecture flags known for this GOARCH")
	}
	root := installsRoot(t)
	multi := distroLibDirs()[0]
	env := map[string]string{
		"ROCM_PATH":       "/opt/rocm-7.0.0",
		"ROCM_HOME":       "/opt/rocm",
		"VIRTUAL_ENV":     "/venv",
		"LD_LIBRARY_PATH": "relative/lib::/opt/rocm-7.0.0/lib",
	}
	opt := Options{Seams: machine.Seams{Root: root, Cwd: "/", Path: []string{},
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}}
	c := newCollector(context.Background(), opt)
	snap := schema.NotCaptured()
	snap.ROCm = schema.ROCm{Root: "/opt/rocm-7.0.0", RootSource: "ROCM_PATH", Layout: "classic"}
	got := collectROCmInstalls(c, snap)

	str := schema.Str
	want := schema.ROCmInstalls{
		Installs: []schema.ROCmInstall{
			{Kind: "opt_rocm", Root: "/opt/rocm-7.0.0", Aliases: []string{"$ROCM_PATH"}, Version: str("7.0.0"), VersionSource: str("info_version"), Described: true},
			{Kind: "opt_rocm", Root: "/opt/rocm", Aliases: []string{"$ROCM_HOME", "/opt/rocm-6.4.1"}, Version: str("6.4.1-120"), VersionSource: str("info_version")},
			{Kind: "therock", Root: "/opt/rocm-7.9.0", Aliases: []string{}, Version: str("7.9.0rc1"), VersionSource: str("therock_manifest")},
			{Kind: "distro", Root: "/usr", Aliases: []string{}, Version: str("5.2.3"), VersionSource: str("dpkg"), Package: str("libamdhip64-5=5.2.3-8")},
			{Kind: "wheel", Root: "/venv/lib/python3.12/site-packages/_rocm_sdk_core", Aliases: []string{}, Version: str("7.10.0"), VersionSource: str("wheel_metadata"), Package: str("rocm-sdk-core=7.10.0")},
		},
		Described: str("/opt/rocm-7.0.0"),
		Loader: []schema.LoaderResolution{
			// The cache's .so.6 entry is another architecture's: the
			// loader of this one takes Debian's .so.5.
			{Library: "libamdhip64.so", Path: str(multi + "/libamdhip64.so.5"), Via: str("ld.so.cache"), Install: str("/usr")},
			{Library: "librocblas.so", Path: str("/opt/rocm/lib/librocblas.so.4"), Via: str("ld.so.cache"), Install: str("/opt/rocm")},
			{Library: "libhipblaslt.so", Path: str("/opt/rocm-7.0.0/lib/libhipblaslt.so.1"), Via: str("LD_LIBRARY_PATH"), Install: str("/opt/rocm-7.0.0")},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %s\nwant %s", pyjson.Encode(got), pyjson.Encode(want))
	}

	// rocm.root_source none: nothing is described; without the cache
	// and LD_LIBRARY_PATH the loader's default directories answer.
	os.Remove(filepath.Join(root, "etc/ld.so.cache"))
	delete(env, "LD_LIBRARY_PATH")
	os.MkdirAll(filepath.Join(root, "usr/lib64"), 0o755)
	os.WriteFile(filepath.Join(root, "usr/lib64/librocblas.so"), nil, 0o644)
	snap.ROCm = schema.ROCm{Root: "/opt/rocm", RootSource: "none", Layout: "classic"}
	got = collectROCmInstalls(newCollector(context.Background(), opt), snap) // the cache is read once per collection
	if got.Described != nil {
		t.Errorf("described %q with root_source none", *got.Described)
	}
	for _, in := range got.Installs {
		if in.Described {
			t.Errorf("%s described with root_source none", in.Root)
		}
	}
	if l := got.Loader[1]; l.Path == nil || *l.Path != "/usr/lib64/librocblas.so" || *l.Via != "default_dirs" || l.Install == nil || *l.Install != "/usr" {
		t.Errorf("librocblas.so without a cache: %s", pyjson.Encode(l))
	}
	if l := got.Loader[0]; l.Path != nil {
		t.Errorf("libamdhip64.so found without cache or LD_LIBRARY_PATH: %s", pyjson.Encode(l))
	}
}

// TestROCmInstallsVersionSources: the version of an install without
// .info/version comes from hipconfig when the hipconfig on PATH is the
// install's own, else from the real name of its HIP runtime.
func TestROCmInstallsVersionSources(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"opt/rocm-6.0.0/bin/hipconfig", "opt/rocm-6.1.0/lib/libamdhip64.so.6.1.40091"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		testtree.WriteFile(filepath.Join(root, p), []byte("#!/bin/sh\n"), 0o755)
	}
	os.Symlink("libamdhip64.so.6.1.40091", filepath.Join(root, "opt/rocm-6.1.0/lib/libamdhip64.so"))
	c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: root, Cwd: "/", Path: []string{filepath.Join(root, "opt/rocm-6.0.0/bin")},
		Env: func(string) (string, bool) { return "", false }}})
	// A foreign root: the tool path is a host path, which names no
	// install; the hipconfig source is checked with the root's own path.
	c.path = []string{"/opt/rocm-6.0.0/bin"}
	c.isExec = func(p string) bool { return p == "/opt/rocm-6.0.0/bin/hipconfig" }
	snap := schema.NotCaptured()
	snap.HIP.Version = schema.Str("6.0.32830-d62f6a171")
	got := collectROCmInstalls(c, snap)
	if len(got.Installs) != 2 {
		t.Fatalf("installs %s", pyjson.Encode(got.Installs))
	}
	for i, want := range [][2]string{{"6.0.32830-d62f6a171", "hipconfig"}, {"6.1.40091", "library_name"}} {
		in := got.Installs[i]
		if in.Version == nil || *in.Version != want[0] || *in.VersionSource != want[1] {
			t.Errorf("%s: %s", in.Root, pyjson.Encode(in))
		}
	}
}

func TestDebianUpstream(t *testing.T) {
	for in, want := range map[string]string{"5.2.3-8": "5.2.3", "1:6.4.1-2ubuntu1": "6.4.1", "7.0": "7.0", "2:1.0-rc-1": "1.0-rc"} {
		if got := debianUpstream(in); got != want {
			t.Errorf("debianUpstream(%q) = %q, want %q", in, got, want)
		}
	}
	for name, want := range map[string]bool{"libamdhip64-5": true, "libamdhip64-dev": false, "libamdhip64-": false, "hip-runtime-amd": true, "libamdhip64-6x": false} {
		if hipRuntimePackage(name) != want {
			t.Errorf("hipRuntimePackage(%q) != %v", name, want)
		}
	}
}
