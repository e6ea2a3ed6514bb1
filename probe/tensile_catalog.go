package probe

import (
	"aorta-probe/internal/parallel"
	"aorta-probe/schema"
)

// collectTensileCatalog is the tensile_catalog block
// (docs/rocm-libraries.md#tensile_catalog-filesystem): the Tensile solution
// menus installed under <lib>/lib/hipblaslt/library and
// <lib>/lib/rocblas/library (content-hashed, both menus at once), with the
// identity fields copied from the hipblaslt, rocblas and tensile blocks.
func collectTensileCatalog(s *state) schema.TensileCatalog {
	c := schema.TensileCatalog{Doc: schema.TensileCatalogDoc, Status: "partial"}
	parallel.Run(
		func() { c.HipBLASLt.Menu = menu(s, s.rocm().lib+hipblasltLib.tensile, tensileMenu) },
		func() { c.RocBLAS.Menu = menu(s, s.rocm().lib+rocblasLib.tensile, tensileMenu) },
	)

	// The copies wait for their blocks only after the menus are hashed, so
	// the libraries and the menus share the hash pool from the start.
	if hb, ok := await(s, hipBLASLtBlock); ok {
		c.HipBLASLt.PackageVersion, c.HipBLASLt.LibHash, c.HipBLASLt.KernelDBRevision = hb.PackageVersion, hb.LibHash, hb.KernelDBRevision
	}
	if rb, ok := await(s, rocBLASBlock); ok {
		c.RocBLAS.PackageVersion, c.RocBLAS.LibHash, c.RocBLAS.KernelDBRevision = rb.PackageVersion, rb.LibHash, rb.KernelDBRevision
	}
	if t, ok := await(s, tensileBlock); ok {
		c.Combined = t
	}

	if c.HipBLASLt.Menu.Status == "ok" && c.RocBLAS.Menu.Status == "ok" {
		c.Status = "ok"
	}
	for _, lib := range []struct {
		key string
		m   schema.Menu
	}{{"hipblaslt", c.HipBLASLt.Menu}, {"rocblas", c.RocBLAS.Menu}} {
		if lib.m.Status != "partial" {
			continue
		}
		why := "menu enumeration incomplete"
		if lib.m.Reason != nil {
			why = *lib.m.Reason
		}
		s.reason("tensile_catalog.%s.menu: %s", lib.key, why)
	}
	return c
}
