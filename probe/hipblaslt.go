package probe

import (
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/schema"
)

// gemmLib names one of the two Tensile-based GEMM libraries.
type gemmLib struct {
	key     string // block name and reason prefix: hipblaslt | rocblas
	header  string // under <inc>
	prefix  string // version-define prefix
	soname  string // under <lib>/lib
	tensile string // Tensile kernel directory under <lib>
}

var (
	hipblasltLib = gemmLib{"hipblaslt", "/include/hipblaslt/hipblaslt-version.h", "HIPBLASLT", "libhipblaslt.so", "/lib/hipblaslt/library"}
	rocblasLib   = gemmLib{"rocblas", "/include/rocblas/internal/rocblas-version.h", "ROCBLAS", "librocblas.so", "/lib/rocblas/library"}
)

// collectHipBLASLt is the hipblaslt block
// (docs/rocm-libraries.md#hipblaslt--rocblas-filesystem).
//
// Source: <inc>/include/hipblaslt/hipblaslt-version.h (TWEAK and
// MAJOR/MINOR/PATCH defines), <lib>/lib/libhipblaslt.so* (content hash),
// <lib>/lib/hipblaslt/library (kernel file names), and the TheRock
// manifest's rocm-libraries pin (upstream_commit).
func collectHipBLASLt(s *state) schema.GemmLibrary { return collectGemm(s, hipblasltLib) }

// collectRocBLAS is the rocblas block
// (docs/rocm-libraries.md#hipblaslt--rocblas-filesystem), the same rules over
// <inc>/include/rocblas/internal/rocblas-version.h, <lib>/lib/librocblas.so*
// and <lib>/lib/rocblas/library.
func collectRocBLAS(s *state) schema.GemmLibrary { return collectGemm(s, rocblasLib) }

func collectGemm(s *state, l gemmLib) schema.GemmLibrary {
	g := schema.NotCapturedGemmLibrary()
	header := s.rocm().inc + l.header
	libDir := s.rocm().lib + "/lib"
	kdir := s.rocm().lib + l.tensile

	text := s.root.ReadText(header)
	g.RocmReleaseTweak, g.PackageVersion = hdrParse(text, l.prefix)
	g.LibHash = libHash(s, libDir, l.soname)
	g.KernelDBRevision = nameFingerprint(s, kdir, tensileDBSuffixes)

	tr, _ := await(s, theRockBlock)
	g.UpstreamCommit = tr.block.GemmLibrariesCommit
	g.UpstreamCommitMatchesTweak = commitMatchesTweak(g.UpstreamCommit, g.RocmReleaseTweak)

	if g.RocmReleaseTweak == nil {
		if text == nil {
			s.reason("%s.rocm_release_tweak: %s not readable", l.key, header)
		} else {
			s.reason("%s.rocm_release_tweak: %s did not contain a readable %s_VERSION_TWEAK define", l.key, header, l.prefix)
		}
	}
	if g.PackageVersion == nil {
		if text == nil {
			s.reason("%s.package_version: %s not readable", l.key, header)
		} else {
			s.reason("%s.package_version: %s did not contain MAJOR/MINOR/PATCH defines", l.key, header)
		}
	}
	if g.LibHash == nil {
		s.reason("%s.lib_hash: %s/%s missing or unreadable", l.key, libDir, l.soname)
	}
	if g.KernelDBRevision == nil {
		s.reason("%s.kernel_db_revision: directory missing/unreadable or no kernel files under %s", l.key, kdir)
	}
	return g
}

// plausibleTweak is a release tweak that can be a commit prefix: 7 to 12
// hex digits, any case.
var plausibleTweak = lazyre.New(`^[A-Fa-f0-9]{7,12}$`)

// commitMatchesTweak is upstream_commit_matches_tweak: null unless both are
// non-empty and the tweak is a plausible commit prefix (7–12 hex digits),
// else whether the commit starts with the tweak, ignoring case.
func commitMatchesTweak(commit, tweak *string) *bool {
	if commit == nil || tweak == nil || *commit == "" || !plausibleTweak().MatchString(*tweak) {
		return nil
	}
	return schema.Bool(strings.HasPrefix(strings.ToLower(*commit), strings.ToLower(*tweak)))
}
