package probe

import (
	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// composableKernel is the composable_kernel block plus the shared libtorch
// symbol dump, which pytorch_build reuses
// (docs/fields-process.md#probe-order).
type composableKernel struct {
	block schema.ComposableKernel
	dump  symbolDump
}

var (
	ckVersionRe = lazyre.New(`#define` + pyfmt.ReSpace + `+CK_VERSION_(MAJOR|MINOR|PATCH)` + pyfmt.ReSpace + `+([0-9]+)`)
	ckCommitRe  = lazyre.New(`#define` + pyfmt.ReSpace + `+CK_COMMIT_ID` + pyfmt.ReSpace + `+([0-9a-fA-F]{7,40})`)
)

// parseCKVersion reads "M.m.p" from every CK_VERSION_{MAJOR,MINOR,PATCH}
// define of ck/version.h (the last of each wins) and the first CK_COMMIT_ID
// hex run (7 to 40 digits, no end boundary).
func parseCKVersion(text string) (version, commit *string) {
	parts := map[string]string{}
	for _, m := range ckVersionRe().FindAllStringSubmatch(text, -1) {
		parts[m[1]] = m[2]
	}
	if len(parts) == 3 {
		version = schema.Str(parts["MAJOR"] + "." + parts["MINOR"] + "." + parts["PATCH"])
	}
	if m := ckCommitRe().FindStringSubmatch(text); m != nil {
		commit = schema.Str(m[1])
	}
	return version, commit
}

// collectComposableKernel is composable_kernel (docs/python.md).
//
//   - system: Source <inc>/include/ck/version.h and
//     <inc>/include/ck_tile/core/config.hpp. Scope: filesystem.
//   - pytorch_bundled: Source the demangled dynamic symbols of torch's
//     libtorch_hip.so (nm -D --defined-only | c++filt), lines with "ck::".
//     Scope: process (the torch the workload interpreter imports).
//   - pytorch_use_ck_sdpa / _gemm: Source torch.__config__.show() text,
//     -DUSE_ROCM_CK_SDPA / -DUSE_ROCM_CK_GEMM as whole defines. Scope: process.
func collectComposableKernel(s *state) composableKernel {
	var ck composableKernel
	b := &ck.block
	header := s.rocm().inc + "/include/ck/version.h"
	text := s.root.ReadText(header)
	if text != nil {
		b.System.Version, b.System.Commit = parseCKVersion(*text)
	}
	switch {
	case b.System.Version != nil:
	case text == nil:
		s.reason("composable_kernel.system.version: %s not readable", header)
	default:
		s.reason("composable_kernel.system.version: %s did not contain MAJOR/MINOR/PATCH defines", header)
	}
	switch {
	case b.System.Commit != nil:
	case text == nil:
		s.reason("composable_kernel.system.commit: %s not readable", header)
	default:
		s.reason("composable_kernel.system.commit: %s did not contain a readable CK_COMMIT_ID define", header)
	}
	b.System.CKTilePresent = s.root.Exists(s.rocm().inc + "/include/ck_tile/core/config.hpp")

	const prefix = "composable_kernel.pytorch_bundled"
	if t, o := s.python().torchAt(prefix); o.imported(s, prefix, "torch", "") {
		ck.dump = dumpTorchSymbols(s, prefix, t)
		if n, ok := ck.dump.count("ck::"); ok {
			b.PytorchBundled = schema.CKBundled{Present: n > 0, SymbolCount: &n}
		}
	}
	b.PytorchUseCKSDPA, b.PytorchUseCKGemm = configDefines(s, "composable_kernel.pytorch_use_ck_sdpa", "USE_ROCM_CK_SDPA", "USE_ROCM_CK_GEMM")
	return ck
}
