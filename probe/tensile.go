package probe

import "aorta-probe/schema"

// collectTensile is the tensile block
// (docs/rocm-libraries.md#tensile-filesystem-except-package_version-process).
//
// Source of package_version: the workload interpreter's `import Tensile`
// (__version__), through the one Python helper run; Tensile not importable
// is a documented absence.
//
// Source of kernel_db_combined_hash: the .yaml/.dat/.co file names in
// <lib>/lib/hipblaslt/library and <lib>/lib/rocblas/library and one level
// down in their gfx* subdirectories
// (docs/rocm-libraries.md#hash-and-fingerprint-forms); null, with the
// reason, when there is none or a listing was incomplete.
func collectTensile(s *state) schema.Tensile {
	hb := s.rocm().lib + hipblasltLib.tensile
	rb := s.rocm().lib + rocblasLib.tensile
	t := schema.Tensile{PackageVersion: tensilePackageVersion(s), KernelDBCombinedHash: combinedFingerprint(s, hb, rb)}
	if t.KernelDBCombinedHash == nil {
		s.reason("tensile.kernel_db_combined_hash: no kernel files found, or the listing was incomplete, under %s or %s", hb, rb)
	}
	return t
}
