package probe

import "aorta-probe/schema"

// collectTriton is the triton block (docs/python.md). Source: the helper's
// `import triton` in the workload interpreter: package_version is
// str(triton.__version__), commit comes from the version (or the module's
// commit attributes). Scope: process (the interpreter's sys.path).
// A missing triton is NOT a documented absence: it appends a reason.
func collectTriton(s *state) schema.Triton {
	f := s.python()
	var t schema.Triton
	p := f.Triton
	switch {
	case !f.packageOutcome(outcomeOf(p), p != nil).imported(s, "triton.package_version", "triton", "triton not importable"):
	case p.Version == nil:
		s.reason("triton.package_version: triton lacks __version__ attribute")
	default:
		t.PackageVersion = p.Version
	}
	if p != nil {
		t.Commit = packageCommit(t.PackageVersion, p.Attrs)
	}
	return t
}

func outcomeOf(p *pyPackage) string {
	if p == nil {
		return ""
	}
	return p.Outcome
}
