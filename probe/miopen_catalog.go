package probe

import (
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// collectMIOpenCatalog is the miopen_catalog block
// (docs/rocm-libraries.md#miopen_catalog-filesystem-the-directory-choice-is-process-scope):
// the MIOpen databases of the effective system db dir —
// $MIOPEN_SYSTEM_DB_PATH when set and non-empty (pathlib-normalised; relative
// stays relative and is read against the cwd), else <lib>/share/miopen/db —
// enumerated and content-hashed, with the identity fields copied from the
// miopen block.
func collectMIOpenCatalog(s *state) schema.MIOpenCatalog {
	c := schema.NotCapturedMIOpenCatalog()
	sysDB, userDB := s.envPtr("MIOPEN_SYSTEM_DB_PATH"), s.envPtr("MIOPEN_USER_DB_PATH")
	c.EnvOverrides = pyjson.Map[*string]{{Key: "MIOPEN_SYSTEM_DB_PATH", Value: sysDB}, {Key: "MIOPEN_USER_DB_PATH", Value: userDB}}

	dir, source := miopenDefaultDB(s), "default"
	if sysDB != nil && *sysDB != "" {
		dir, source = pathlibStr(*sysDB), "MIOPEN_SYSTEM_DB_PATH"
	}
	c.DBDir, c.DBDirSource = schema.Str(dir), schema.Str(source)
	c.Menu = menu(s, dir, miopenMenu)
	c.Status = c.Menu.Status
	var recomputed *string
	if source != "default" {
		// The override is active: the block describes that one directory.
		recomputed = nameFingerprint(s, dir, miopenDBSuffixes)
	}

	m, _ := await(s, miopenBlock)
	c.PackageVersion, c.LibHash, c.KernelDBRevision = m.PackageVersion, m.LibHash, m.KernelDBRevision
	if source != "default" {
		c.KernelDBRevision = recomputed
	}
	if c.Menu.Status == "partial" {
		s.reason("miopen_catalog.menu: %s", *c.Menu.Reason)
	}
	return c
}
