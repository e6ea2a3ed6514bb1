package probe

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestPythonROCmFacts(t *testing.T) {
	python := needPython(t)
	site := filepath.Join(t.TempDir(), "site")
	writeFiles(t, site, map[string]string{
		"torch/__init__.py":                      "__version__ = '2.10.0+rocm7.15.0a20260716'\nfrom . import version\n",
		"torch/version.py":                       "hip = '7.1.0'\n",
		"rocm_sdk_core-7.2.1.dist-info/METADATA": "Name: rocm-sdk-core\nVersion: 7.2.1\n",
		"Tensile/__init__.py":                    "x = 1\n",
	})
	f := bridgeFacts(t, python, site)
	c := newCollector(context.Background(), Options{Cwd: "/"})
	c.python = func() *pyFacts { return f }
	s := &state{collector: c}
	if v, known := pyDistVersion(s, "rocm-sdk-core"); !known || ptrV(v) != "7.2.1" {
		t.Errorf("rocm-sdk-core %s %v", ptrV(v), known)
	}
	if v, known := pyDistVersion(s, "rocm"); !known || v != nil {
		t.Errorf("rocm %s %v", ptrV(v), known)
	}
	if v, known := pyTorchROCmVersion(s); !known || ptrV(v) != "7.15.0a20260716" {
		t.Errorf("torch rocm %s %v", ptrV(v), known)
	}
	if v := tensilePackageVersion(s); v != nil || strings.Join(s.reasons, "|") != "tensile.package_version: Tensile lacks __version__ attribute" {
		t.Errorf("tensile %s %q", ptrV(v), s.reasons)
	}
	none := &state{collector: newCollector(context.Background(), Options{Cwd: "/"})}
	none.collector.python = func() *pyFacts { return &pyFacts{outcome: pyNotFound} }
	if _, known := pyDistVersion(none, "rocm"); known {
		t.Error("no interpreter must leave the answer to the filesystem stand-in")
	}
	if _, known := pyTorchROCmVersion(none); known {
		t.Error("no interpreter must leave the answer to the filesystem stand-in")
	}
}
