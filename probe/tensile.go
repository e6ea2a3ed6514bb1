package probe

import "aorta-probe/schema"

// collectTensile is the tensile block (core.md §12.4).
//
// package_version is the Python Tensile module's __version__; this binary
// does not import Python modules, so it is null, which is the anchor's
// documented "Tensile not importable" absence (no reason).
//
// Source of kernel_db_combined_hash: the .yaml/.dat/.co file names directly
// in <lib>/lib/hipblaslt/library and <lib>/lib/rocblas/library (§3.5, no
// gfx subdirectories).
func collectTensile(s *state) schema.Tensile {
	hb := s.roots.lib + hipblasltLib.tensile
	rb := s.roots.lib + rocblasLib.tensile
	t := schema.Tensile{KernelDBCombinedHash: combinedFingerprint(s, hb, rb)}
	if t.KernelDBCombinedHash == nil {
		s.reason("tensile.kernel_db_combined_hash: no kernel files under %s or %s", hb, rb)
	}
	return t
}
