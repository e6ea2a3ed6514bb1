package probe

import (
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// collectRocFFTCatalog is the rocfft_catalog block
// (docs/rocm-libraries.md#rocfft_catalog-filesystem-the-override-is-process-scope):
// rocFFT's optional read-only ahead-of-time kernel cache. Candidates in
// order: $ROCFFT_RTC_SYS_CACHE_PATH itself, then <it>/rocfft_kernel_cache.db
// (when the variable is non-empty), then <lib>/lib/rocfft_kernel_cache.db and
// <lib>/lib/rocfft/rocfft_kernel_cache.db. The first regular file wins and is
// content-hashed; none is the documented absence. $ROCFFT_RTC_CACHE_PATH (the
// per-process user cache) is recorded only.
func collectRocFFTCatalog(s *state) schema.RocFFTCatalog {
	sys, user := s.envPtr("ROCFFT_RTC_SYS_CACHE_PATH"), s.envPtr("ROCFFT_RTC_CACHE_PATH")
	c := schema.RocFFTCatalog{
		Doc: schema.RocFFTCatalogDoc, Status: "absent",
		EnvOverrides: pyjson.Map[*string]{{Key: "ROCFFT_RTC_SYS_CACHE_PATH", Value: sys}, {Key: "ROCFFT_RTC_CACHE_PATH", Value: user}},
	}
	type cand struct{ path, source string }
	var cands []cand
	if sys != nil && *sys != "" {
		p := pathlibStr(*sys)
		cands = append(cands, cand{p, "ROCFFT_RTC_SYS_CACHE_PATH"}, cand{pathlibJoin(p, "rocfft_kernel_cache.db"), "ROCFFT_RTC_SYS_CACHE_PATH"})
	}
	lib := s.rocm().lib + "/lib"
	cands = append(cands, cand{lib + "/rocfft_kernel_cache.db", "rocm_lib"}, cand{lib + "/rocfft/rocfft_kernel_cache.db", "rocm_lib"})
	for _, cd := range cands {
		fi, err := s.root.Stat(cd.path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		k := &c.KernelCache
		k.Present, k.Path, k.Source = true, schema.Str(cd.path), schema.Str(cd.source)
		size := fi.Size()
		k.Size = &size
		if sum, err := s.sha256OfPath(cd.path); err == nil {
			c.Status, k.SHA256 = "ok", &sum
		} else {
			c.Status, k.Reason = "partial", schema.Str("cache file present but could not be hashed")
			s.reason("rocfft_catalog.kernel_cache: present but unreadable at %s", cd.path)
		}
		break
	}
	return c
}
