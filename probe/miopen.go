package probe

import "aorta-probe/schema"

// collectMIOpen is the miopen block
// (docs/rocm-libraries.md#miopen-filesystem).
//
// Source: <inc>/include/miopen/version.h (MIOPEN_VERSION_* defines),
// <lib>/lib/libMIOpen.so* (content hash) and the .txt file names of the
// packaged db dir <lib>/share/miopen/db (always that directory: only
// miopen_catalog honours MIOPEN_SYSTEM_DB_PATH).
func collectMIOpen(s *state) schema.MIOpen {
	var m schema.MIOpen
	header := s.rocm().inc + "/include/miopen/version.h"
	libDir := s.rocm().lib + "/lib"
	db := miopenDefaultDB(s)

	text := s.root.ReadText(header)
	m.RocmReleaseTweak, m.PackageVersion = hdrParse(text, "MIOPEN")
	m.LibHash = libHash(s, libDir, "libMIOpen.so")
	m.KernelDBRevision = nameFingerprint(s, db, miopenDBSuffixes)

	if m.RocmReleaseTweak == nil {
		headerReason(s, "miopen.rocm_release_tweak", header, text, "a readable MIOPEN_VERSION_TWEAK define")
	}
	if m.PackageVersion == nil {
		headerReason(s, "miopen.package_version", header, text, "MAJOR/MINOR/PATCH defines")
	}
	if m.LibHash == nil {
		s.reason("miopen.lib_hash: %s/libMIOpen.so missing or unreadable", libDir)
	}
	if m.KernelDBRevision == nil {
		s.reason("miopen.kernel_db_revision: directory missing/unreadable or no .txt files under %s", db)
	}
	return m
}

func miopenDefaultDB(s *state) string { return s.rocm().lib + "/share/miopen/db" }
