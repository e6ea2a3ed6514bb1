package probe

import (
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// ninjaTargets are the build targets of interest, in order (docs/python.md).
var ninjaTargets = []string{"torch_hip", "torch_cpu", "c10_hip", "ck_sdpa", "mslk"}

// ninjaUseDefines are the 27 keys of use_defines_present, in order.
var ninjaUseDefines = []string{
	"USE_FLASH_ATTENTION", "USE_MEM_EFF_ATTENTION", "USE_ROCM_CK_SDPA", "USE_ROCM_CK_GEMM",
	"USE_AOTRITON", "DISABLE_AOTRITON", "USE_MKL", "FLASH_NAMESPACE",
	"CK_TILE_FMHA_FWD_FAST_EXP2", "CK_TILE_FMHA_FWD_APPENDKV_API", "CK_TILE_FMHA_FWD_PAGEDKV_API",
	"CK_TILE_FMHA_FWD_SPLITKV_API", "CK_TILE_FLOAT_TO_BFLOAT16_DEFAULT", "CK_USE_XDL",
	"CK_USE_FNUZ_FP8", "CK_USE_GFX94", "USE_LAYERNORM_FAST_RECIPROCAL", "UNFUSE_FMA",
	"FLASHATTENTION_DISABLE_ALIBI", "FLASHATTENTION_DISABLE_SOFTCAP", "HIPBLASLT_USE_ROCROLLER",
	"HIPBLASLT_HAS_GETINDEXFROMALGO", "HIPBLAS_V2", "HIPBLASLT_OUTER_VEC",
	"HIP_ENABLE_WARP_SYNC_BUILTINS", "ROCM_VERSION", "TORCH_HIP_VERSION",
}

// ninjaCodegenFlags are the 7 keys of codegen_flags_present, in order.
var ninjaCodegenFlags = []string{
	"-fgpu-flush-denormals-to-zero", "-ffast-math", "-fno-fast-math", "-ffp-contract=fast",
	"-ffp-contract=on", "-ffp-contract=off", "-fdenormal-fp-math",
}

var (
	ninjaDefineRe     = lazyre.New(`-D([A-Za-z_][A-Za-z0-9_]*)(?:=(` + pyfmt.ReNotSpace + `+))?`)
	offloadArchRe     = lazyre.New(`--offload-arch=(` + pyfmt.ReNotSpace + `+)`)
	findHIPSetRe      = lazyre.New(`(?m)^` + pyfmt.ReSpace + `*set` + pyfmt.ReSpace + `*\(` + pyfmt.ReSpace + `*(HIP_HIPCC_FLAGS|HIP_CLANG_FLAGS|HIP_HCC_FLAGS)(?:_[A-Z]+)?` + pyfmt.ReSpace + `+([^)]*)\)` + pyfmt.ReSpace + `*$`)
	leadingNotSpaceRe = lazyre.New(`^` + pyfmt.ReNotSpace + `+`)
	blobSplitRe       = lazyre.New(`[;\t\n\v\f\r \x1c-\x1f]+`)
)

// ninjaTargetBlock turns collected strings into one target's object:
// defines from the DEFINES strings (or blobs) in sorted order, later
// overwriting; codegen flags and offload archs from the FLAGS strings.
func ninjaTargetBlock(defs map[string]*string, flagTexts []string, archs map[string]bool) schema.NinjaTarget {
	t := schema.NinjaTarget{Defines: pyjson.Sorted(defs), OffloadArchs: []string{}}
	for _, d := range ninjaUseDefines {
		_, ok := defs[d]
		t.UseDefinesPresent = append(t.UseDefinesPresent, pyjson.Entry[bool]{Key: d, Value: ok})
	}
	for _, f := range ninjaCodegenFlags {
		hit := false
		for _, txt := range flagTexts {
			if strings.Contains(txt, f) {
				hit = true
				break
			}
		}
		t.CodegenFlagsPresent = append(t.CodegenFlagsPresent, pyjson.Entry[bool]{Key: f, Value: hit})
	}
	for a := range archs {
		t.OffloadArchs = append(t.OffloadArchs, a)
	}
	sort.Strings(t.OffloadArchs)
	return t
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// modernTargets builds the targets object of the ninja_defines parser.
func modernTargets(coll map[string]*source.NinjaTarget) pyjson.Map[schema.NinjaTarget] {
	out := pyjson.Map[schema.NinjaTarget]{}
	for _, name := range sortedKeys(keysOf(coll)) {
		c := coll[name]
		defs := map[string]*string{}
		for _, d := range sortedKeys(c.Defines) {
			for _, sm := range ninjaDefineRe().FindAllStringSubmatchIndex(d, -1) {
				var v *string
				if sm[4] >= 0 {
					v = schema.Str(d[sm[4]:sm[5]])
				}
				defs[d[sm[2]:sm[3]]] = v
			}
		}
		flags := sortedKeys(c.Flags)
		archs := map[string]bool{}
		for _, f := range flags {
			for _, m := range offloadArchRe().FindAllStringSubmatch(f, -1) {
				archs[m[1]] = true
			}
		}
		out = append(out, pyjson.Entry[schema.NinjaTarget]{Key: name, Value: ninjaTargetBlock(defs, flags, archs)})
	}
	return out
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// Legacy FindHIP fallback limits (docs/python.md).
const (
	findHIPMaxScripts = 50000
	findHIPMaxChars   = 1048576
)

// findHIPBlobs extracts the value of every set(HIP_*_FLAGS value) statement
// of a FindHIP per-source script.
func findHIPBlobs(text string) []string {
	var out []string
	for _, m := range findHIPSetRe().FindAllStringSubmatch(text, -1) {
		if m[2] != "" {
			out = append(out, m[2])
		}
	}
	return out
}

// legacyTarget is one target's object from its FindHIP blobs: tokens split
// on runs of ";" and whitespace; -DNAME[=VALUE] prefixes are defines,
// --offload-arch=X prefixes archs; codegen flags by substring of the blob.
func legacyTarget(blobs map[string]bool) schema.NinjaTarget {
	defs := map[string]*string{}
	archs := map[string]bool{}
	sorted := sortedKeys(blobs)
	for _, b := range sorted {
		for _, tok := range blobSplitRe().Split(b, -1) {
			if tok == "" {
				continue
			}
			if sm := ninjaDefineRe().FindStringSubmatchIndex(tok); sm != nil && sm[0] == 0 {
				var v *string
				if sm[4] >= 0 {
					v = schema.Str(tok[sm[4]:sm[5]])
				}
				defs[tok[sm[2]:sm[3]]] = v
			} else if a, ok := strings.CutPrefix(tok, "--offload-arch="); ok {
				if m := leadingNotSpaceRe().FindString(a); m != "" {
					archs[m] = true
				}
			}
		}
	}
	return ninjaTargetBlock(defs, sorted, archs)
}

// findBelow lists, below dir, every entry for which match holds (isDir
// follows symlinks; symlinked directories are not descended), sorted.
func findBelow(root *machine.FS, dir string, match func(name string, isDir bool) bool) []string {
	var out []string
	var walk func(p string)
	walk = func(p string) {
		entries, err := root.ReadDir(p)
		if err != nil {
			return
		}
		for _, e := range entries {
			q := p + "/" + e.Name()
			isDir := e.Type()&os.ModeSymlink == 0 && e.IsDir()
			if match(e.Name(), root.IsDir(q)) {
				out = append(out, q)
			}
			if isDir {
				walk(q)
			}
		}
	}
	walk(dir)
	sort.Strings(out)
	return out
}

// legacyFindHIP is the legacy fallback: the FindHIP *.hip.o.cmake scripts
// under <build>/**/<target>.dir/ of each target of interest.
func legacyFindHIP(s *state, buildDir string) (pyjson.Map[schema.NinjaTarget], int, bool) {
	if !s.root.IsDir(buildDir) {
		s.reason("pytorch_build.ninja_hipcc: legacy FindHIP fallback found no *.hip.o.cmake scripts under %s", buildDir)
		return nil, 0, false
	}
	scanned, unreadable, truncated, capHit := 0, 0, 0, false
	blobs := map[string]map[string]bool{}
	scannedFor := map[string]bool{}
targets:
	for _, t := range ninjaTargets {
		for _, d := range findBelow(s.root, buildDir, func(n string, isDir bool) bool { return isDir && n == t+".dir" }) {
			scripts := findBelow(s.root, d, func(n string, isDir bool) bool { return !isDir && strings.HasSuffix(n, ".hip.o.cmake") })
			for _, sc := range scripts {
				if scanned >= findHIPMaxScripts {
					capHit = true
					break targets
				}
				// Only the head can matter: findHIPMaxChars characters
				// take at most 4 bytes each (an undecodable byte is one
				// character), and a sequence cut at the end of the head
				// lies past them. Reading more would only cost memory.
				b, err := s.root.ReadHead(sc, 4*findHIPMaxChars+utf8.UTFMax)
				if err != nil {
					unreadable++
					continue
				}
				text := pyfmt.DecodeReplace(b)
				if r := []rune(text); len(text) > findHIPMaxChars && len(r) > findHIPMaxChars {
					text = string(r[:findHIPMaxChars])
					truncated++
				}
				scanned++
				scannedFor[t] = true
				if blobs[t] == nil {
					blobs[t] = map[string]bool{}
				}
				for _, v := range findHIPBlobs(text) {
					blobs[t][v] = true
				}
			}
		}
	}
	nblobs := 0
	for _, b := range blobs {
		nblobs += len(b)
	}
	if scanned == 0 && nblobs == 0 {
		if unreadable > 0 {
			s.reason("pytorch_build.ninja_hipcc: legacy FindHIP fallback found %d *.hip.o.cmake script(s) under %s but every one was unreadable (check permissions / mount state)", unreadable, buildDir)
		} else {
			s.reason("pytorch_build.ninja_hipcc: legacy FindHIP fallback found no *.hip.o.cmake scripts under %s", buildDir)
		}
		return nil, 0, false
	}
	if unreadable > 0 {
		s.reason("pytorch_build.ninja_hipcc: legacy FindHIP fallback skipped %d unreadable script(s)", unreadable)
	}
	if truncated > 0 {
		s.reason("pytorch_build.ninja_hipcc: legacy FindHIP fallback truncated %d script(s) at 1048576 bytes (defines/flags past the cap were dropped from the affected target)", truncated)
	}
	if capHit {
		s.reason("pytorch_build.ninja_hipcc: legacy FindHIP fallback truncated after scanning %d scripts (cap 50000)", scanned)
	}
	out := pyjson.Map[schema.NinjaTarget]{}
	for _, t := range sortedKeys(scannedFor) {
		out = append(out, pyjson.Entry[schema.NinjaTarget]{Key: t, Value: legacyTarget(blobs[t])})
	}
	return out, scanned, true
}

// collectNinjaHIPCC is pytorch_build.ninja_hipcc. Source:
// <source_path>/build/build.ninja (HIP_COMPILER rules' DEFINES and FLAGS),
// else the legacy FindHIP per-source scripts. Scope: filesystem.
func collectNinjaHIPCC(s *state, kind string, src *string) schema.NinjaHIPCC {
	coll, p, ok := readBuildFile(s, kind, src, "build.ninja", "ninja_hipcc", readNinja)
	if !ok {
		return schema.NinjaHIPCC{}
	}
	n := schema.NinjaHIPCC{SourceFile: &p}
	if len(coll) > 0 {
		n.Parser = schema.Str("ninja_defines")
		n.Targets = modernTargets(coll)
		return n
	}
	targets, scanned, ok := legacyFindHIP(s, *src+"/build")
	if !ok {
		n.Targets = pyjson.Map[schema.NinjaTarget]{}
		return n
	}
	n.Parser = schema.Str("legacy_findhip_per_source")
	n.LegacyScriptsScanned = &scanned
	n.Targets = targets
	return n
}

// readNinja streams build.ninja (it can be hundreds of MiB) through the
// modern parser (source.FS.Ninja); the error is the machine's, which the
// reason names.
func readNinja(root *machine.FS, p string) (map[string]*source.NinjaTarget, error) {
	coll, err := source.NewFS(root).Ninja(p, ninjaTargets)
	return coll, source.Cause(err)
}
