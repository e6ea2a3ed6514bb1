package probe

import "aorta-probe/schema"

// collectTensile is the tensile block
// (docs/rocm-libraries.md#tensile-filesystem-except-package_version-process).
//
// Source of package_version: the workload interpreter's `import Tensile`
// (__version__), through the one Python helper run; Tensile not importable
// is a documented absence.
//
// Source of kernel_db_combined_hash: the .yaml/.dat/.co file names directly
// in <lib>/lib/hipblaslt/library and <lib>/lib/rocblas/library
// (docs/rocm-libraries.md#hash-and-fingerprint-forms, no gfx subdirectories).
func collectTensile(s *state) schema.Tensile {
	hb := s.rocm().lib + hipblasltLib.tensile
	rb := s.rocm().lib + rocblasLib.tensile
	t := schema.Tensile{PackageVersion: tensilePackageVersion(s), KernelDBCombinedHash: combinedFingerprint(s, hb, rb)}
	if t.KernelDBCombinedHash == nil {
		s.reason("tensile.kernel_db_combined_hash: no kernel files under %s or %s", hb, rb)
	}
	return t
}
