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

func TestPythonROCmFacts(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	site := filepath.Join(t.TempDir(), "site")
	testtree.Files(t, site, map[string]string{
		"torch/__init__.py":                      "__version__ = '2.10.0+rocm7.15.0a20260716'\nfrom . import version\n",
		"torch/version.py":                       "hip = '7.1.0'\n",
		"rocm_sdk_core-7.2.1.dist-info/METADATA": "Name: rocm-sdk-core\nVersion: 7.2.1\n",
		"Tensile/__init__.py":                    "x = 1\n",
	})
	f := bridgeFacts(t, python, site)
	c := newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})
	c.python = func() *pyFacts { return f }
	s := &state{collector: c}
	if v, known := pyDistVersion(s, "rocm-sdk-core"); !known || golden.OrNull(v) != "7.2.1" {
		t.Errorf("rocm-sdk-core %s %v", golden.OrNull(v), known)
	}
	if v, known := pyDistVersion(s, "rocm"); !known || v != nil {
		t.Errorf("rocm %s %v", golden.OrNull(v), known)
	}
	if v, known := pyTorchROCmVersion(s); !known || golden.OrNull(v) != "7.15.0a20260716" {
		t.Errorf("torch rocm %s %v", golden.OrNull(v), known)
	}
	if v := tensilePackageVersion(s); v != nil || strings.Join(s.reasons, "|") != "tensile.package_version: Tensile lacks __version__ attribute" {
		t.Errorf("tensile %s %q", golden.OrNull(v), s.reasons)
	}
	none := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})}
	none.collector.python = func() *pyFacts { return &pyFacts{outcome: pyNotFound} }
	if _, known := pyDistVersion(none, "rocm"); known {
		t.Error("no interpreter must leave the answer to the filesystem stand-in")
	}
	if _, known := pyTorchROCmVersion(none); known {
		t.Error("no interpreter must leave the answer to the filesystem stand-in")
	}
}

// TestROCmVersionChainStrips: the pip and torch steps of rocm.version strip
// their value and skip it when empty, so the chain goes on
// (docs/fields-process.md#rocm-filesystem-kmd_version-host-kernel).
func TestROCmVersionChainStrips(t *testing.T) {
	dist := func(v any) pyCall { return pyCall{State: "ok", Value: v} }
	for _, tc := range []struct {
		name         string
		rocm, sdk    pyCall
		hip          any
		torchVersion string
		want, source string // want "": null
	}{
		{"pip value stripped", dist("  7.1.0  "), pyCall{State: "missing"}, nil, "2.9.0", "7.1.0", "pip:rocm"},
		{"blank pip:rocm skipped", dist("   "), dist(" 7.2.0\n"), nil, "2.9.0", "7.2.0", "pip:rocm-sdk-core"},
		{"empty rocm-sdk-core goes on to torch", pyCall{State: "missing"}, dist(""), " 7.0.1 ", "2.9.0", "7.0.1", "torch"},
		{"torch +rocm segment", pyCall{State: "missing"}, dist(" "), nil, "2.9.0+rocm7.1.1", "7.1.1", "torch"},
		{"blank torch hip: nothing", pyCall{State: "missing"}, dist(""), "  ", "2.9.0", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testState(t, t.TempDir())
			s.collector.rocm = func() rocmRoots { return classicRoots("/opt/rocm", "none") }
			tv := tc.torchVersion
			f := &pyFacts{
				Interpreter: &pyInterpreter{Dists: map[string]pyCall{"rocm": tc.rocm, "rocm-sdk-core": tc.sdk}},
				TorchSites:  map[string]string{"rocm.version": "ok"},
				Torch:       &pyTorch{Version: &tv, VersionModule: &pyTorchVersionMod{HIP: tc.hip}},
			}
			s.collector.python = func() *pyFacts { return f }
			finishBlock(s, theRockBlock, theRock{}, "rocm")
			r := collectROCm(s)
			if golden.OrNull(r.Version) != map[bool]string{true: "null", false: tc.want}[tc.want == ""] ||
				golden.OrNull(r.VersionSource) != map[bool]string{true: "null", false: tc.source}[tc.source == ""] {
				t.Errorf("version %s source %s, want %q %q", golden.OrNull(r.Version), golden.OrNull(r.VersionSource), tc.want, tc.source)
			}
			if tc.want == "" && (len(s.reasons) == 0 || !strings.HasPrefix(s.reasons[0], "rocm.version: no version from")) {
				t.Errorf("reasons %q", s.reasons)
			}
		})
	}
}
