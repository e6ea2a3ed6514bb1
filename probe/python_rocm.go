package probe

import (
	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// Python facts for blocks outside the Python area: the rocm.version chain
// (steps 3–4, docs/fields-process.md#rocm-filesystem-kmd_version-host-kernel)
// and tensile.package_version
// (docs/rocm-libraries.md#tensile-filesystem-except-package_version-process).
// Each accessor says known=false when no interpreter reported, so its caller
// keeps its filesystem stand-in for that case.

// pyDistVersion is importlib.metadata.version(name) in the workload
// interpreter, for name rocm or rocm-sdk-core, stripped; any error, and a
// value empty after stripping, is no answer.
func pyDistVersion(s *state, name string) (v *string, known bool) {
	in := s.python().Interpreter
	if in == nil {
		return nil, false
	}
	d := in.Dists[name]
	if d.State != "ok" {
		return nil, true
	}
	str, _ := d.Value.(string)
	if str = pyfmt.Strip(str); str == "" {
		return nil, true // stripped empty: the chain goes on
	}
	return &str, true
}

var torchROCmVersionRe = lazyre.New(`\+rocm([0-9][0-9A-Za-z.\-]*)`)

// pyTorchROCmVersion is the torch step of the rocm.version chain, with
// torch imported (silently) at the helper's rocm.version site: the part of
// str(torch.__version__) after "+rocm", else torch.version.hip, stripped
// and non-empty.
func pyTorchROCmVersion(s *state) (v *string, known bool) {
	f := s.python()
	if f.Interpreter == nil {
		return nil, false
	}
	t, o := f.torchAt("rocm.version")
	if o != importOK {
		return nil, true
	}
	if t.Version != nil {
		if m := torchROCmVersionRe().FindStringSubmatch(*t.Version); m != nil {
			return &m[1], true
		}
	}
	if t.VersionModule != nil {
		if hip := truthyStr(t.VersionModule.HIP); hip != nil {
			if v := pyfmt.Strip(*hip); v != "" {
				return &v, true
			}
		}
	}
	return nil, true
}

// tensilePackageVersion is tensile.package_version
// (docs/rocm-libraries.md#tensile-filesystem-except-package_version-process)
// from the helper's `import Tensile`: ImportError is silent, another
// exception and a missing __version__ append the spec's reasons. For the
// tensile block.
func tensilePackageVersion(s *state) *string {
	f := s.python()
	p := f.Tensile
	switch {
	case !f.packageOutcome(outcomeOf(p), p != nil).imported(s, "tensile.package_version", "Tensile", ""):
	case p.Version == nil:
		s.reason("tensile.package_version: Tensile lacks __version__ attribute")
	default:
		return schema.Str(*p.Version)
	}
	return nil
}
