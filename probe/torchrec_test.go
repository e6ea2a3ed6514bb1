package probe

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

// bridgeFacts runs the real helper with python over site and returns the facts.
func bridgeFacts(t *testing.T, python, site string) *pyFacts {
	t.Helper()
	py := wrapper(t, t.TempDir(), "py", python, site)
	opt := withDefaults(Options{Seams: machine.Seams{Path: []string{}, Env: func(string) (string, bool) { return "", false }}})
	opt.Python.Interpreter = py
	opt.Cwd = "/"
	c := newCollector(context.Background(), opt)
	f := runPythonBridge(c)
	if f.outcome != pyOK {
		t.Fatalf("helper: %s %s", f.outcome, f.detail)
	}
	return f
}

// TestTorchRecFixtures are the Python probe's torchrec cases, run
// through the helper's implementation with the real interpreter.
func TestTorchRecFixtures(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	sha := "0123abcdef0123abcdef0123abcdef0123abcdef"
	dist := func(v string, record string) map[string]string {
		return map[string]string{
			"torchrec-" + v + ".dist-info/METADATA": "Metadata-Version: 2.1\nName: torchrec\nVersion: " + v + "\n",
			"torchrec-" + v + ".dist-info/RECORD":   record,
		}
	}
	merge := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	pkg := map[string]string{"torchrec/__init__.py": ""}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		want    string // package_version commit source_version source_commit distribution_version
		reasons string
	}{
		{"all five", merge(pkg, dist("1.4.0", "torchrec/__init__.py,,\n"), map[string]string{"torchrec/version.py": "__version__ = '1.4.0'\ngit_version = '" + sha + "'\n"}),
			"1.4.0 " + sha + " 1.4.0 " + sha + " 1.4.0", ""},
		{"git_version Unknown", merge(pkg, map[string]string{"torchrec/version.py": "__version__ = '1.4.0'\ngit_version = 'Unknown'\n"}),
			"1.4.0 null 1.4.0 null null", ""},
		{"version.py only", merge(pkg, map[string]string{"torchrec/version.py": "__version__ = '1.8.0a0'\n"}),
			"1.8.0a0 null 1.8.0a0 null null", ""},
		{"local hex commit", merge(pkg, map[string]string{"torchrec/version.py": "__version__ = '1.8.0a0+0123abc'\n"}),
			"1.8.0a0+0123abc 0123abc 1.8.0a0+0123abc null null", ""},
		{"local date is no commit", merge(pkg, map[string]string{"torchrec/version.py": "__version__ = '1.4.0+d20240101'\n"}),
			"1.4.0+d20240101 null 1.4.0+d20240101 null null", ""},
		{"importable, nothing else", pkg, "null null null null null",
			"torchrec.package_version: import target has no readable source version and no distribution metadata; primary identity remains unknown"},
		{"dist not owning the files", merge(pkg, dist("2.0.0", "elsewhere/x.py,,\n")), "null null null null 2.0.0",
			"torchrec.package_version: import target has no readable source version; distribution metadata is retained separately and is not promoted because ownership cannot be verified"},
		{"dist owning the files", merge(pkg, dist("2.0.0", "torchrec/__init__.py,,\n")), "2.0.0 null null null 2.0.0", ""},
		{"bare namespace dir", map[string]string{"torchrec/data.txt": "x"}, "null null null null null", ""},
		{"namespace dir and unrelated dist", merge(map[string]string{"torchrec/data.txt": "x"}, dist("2.0.0", "")), "null null null null 2.0.0",
			"torchrec.package_version: distribution metadata exists but PEP 420 namespace portion; metadata is retained separately and primary identity remains unknown"},
		{"version disagreement", merge(pkg, dist("2.0.0", ""), map[string]string{"torchrec/version.py": "__version__ = '1.9.0'\n"}),
			"1.9.0 null 1.9.0 null 2.0.0",
			"torchrec: import target reports version 1.9.0 but distribution metadata reports 2.0.0; reporting the import target, and both are recorded separately"},
		{"absent", map[string]string{}, "null null null null null", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := filepath.Join(t.TempDir(), "site")
			testtree.Files(t, site, tc.files)
			if len(tc.files) == 0 {
				testtree.Files(t, site, map[string]string{"other.py": ""})
			}
			tr := bridgeFacts(t, python, site).TorchRec
			b := tr.Block
			got := strings.Join([]string{golden.OrNull(b.PackageVersion), golden.OrNull(b.Commit), golden.OrNull(b.SourceVersion), golden.OrNull(b.SourceCommit), golden.OrNull(b.DistributionVersion)}, " ")
			if got != tc.want {
				t.Errorf("block %s, want %s", got, tc.want)
			}
			if r := strings.Join(tr.Reasons, "\n"); r != tc.reasons {
				t.Errorf("reasons %q, want %q", r, tc.reasons)
			}
		})
	}
}
