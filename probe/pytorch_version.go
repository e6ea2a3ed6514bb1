package probe

// collectPytorchVersion is pytorch_version (docs/python.md). Source:
// str(torch.__version__) at the helper's pytorch_version import site.
// Scope: process. Never the string "None".
func collectPytorchVersion(s *state) *string {
	t, o := s.python().torchAt("pytorch_version")
	switch {
	case !o.imported(s, "pytorch_version", "torch", "torch not importable"):
	case t.Version == nil:
		s.reason("pytorch_version: torch lacks __version__ attribute")
	default:
		return t.Version
	}
	return nil
}
