package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"sort"
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// collectAiter is the aiter block (docs/python.md). Source: the helper's
// `import aiter` (aiter.__version__, else aiter._version.__version__),
// importlib.metadata for the dists amd_aiter then aiter, and
// find_spec("aiter_meta"); the HSA kernel trees are listed and hashed here.
// Scope: process (versions) and filesystem (hsa_tree). Absence is silent.
func collectAiter(s *state) schema.Aiter {
	f := s.python()
	var b schema.Aiter
	p := f.Aiter
	imported := false
	var version any
	if f.packageOutcome(aiterOutcome(p), p != nil).imported(s, "aiter.package_version", "aiter", "") {
		imported = true
		version = p.Version
	}
	if p != nil {
		for _, d := range p.Dists {
			if d.State != "ok" {
				continue
			}
			name := d.Name
			b.PackageDistName = &name
			if version == nil {
				version = d.Value
			}
			break
		}
	}
	if imported && version == nil {
		s.reason("aiter.package_version: aiter imported but no __version__, no aiter._version.__version__, and no amd_aiter dist metadata")
	}
	if v, ok := version.(string); ok {
		b.PackageVersion = &v
		b.Commit = extractCommit(v)
	} else if version != nil {
		// A non-string __version__ is written as Python's str() of it.
		v := pyjson.Str(version)
		b.PackageVersion = &v
	}
	b.HSATree = hsaTree(s, p, imported)
	return b
}

func aiterOutcome(p *pyAiter) string {
	if p == nil {
		return ""
	}
	return p.Outcome
}

// hsaRoots collects the aiter HSA kernel roots of aiter.hsa_tree
// (docs/python.md), in discovery order, deduplicated by resolved path.
func hsaRoots(s *state, p *pyAiter, imported bool) []string {
	var cands []string
	if p != nil && p.MetaSpec != nil {
		locs := append([]string(nil), p.MetaSpec.Locations...)
		if o, ok := p.MetaSpec.Origin.(string); ok {
			locs = append(locs, o)
		}
		for _, loc := range locs {
			if loc == "" {
				continue
			}
			base := loc
			if s.root.IsRegular(loc) {
				base = pyDirname(loc)
			}
			cands = append(cands, base+"/hsa")
		}
	}
	if imported && p != nil {
		if file, ok := p.File.(string); ok && file != "" {
			real := s.root.Realpath(file)
			cands = append(cands, pyDirname(pyDirname(real))+"/aiter_meta/hsa")
		}
	}
	if src := s.getenv("AORTA_PYTORCH_SRC"); src != "" {
		cands = append(cands, expandUser(s, src)+"/third_party/aiter/hsa")
	}
	var roots []string
	seen := map[string]bool{}
	for _, c := range cands {
		if !s.root.IsDir(c) {
			continue
		}
		r := s.root.Realpath(c)
		if !seen[r] {
			seen[r] = true
			roots = append(roots, r)
		}
	}
	return roots
}

// hsaTree is aiter.hsa_tree (docs/python.md): per root, per arch
// directory, the file and .co counts and a combined SHA-256 over the
// sorted (relative path, file digest) pairs. Null when no root has an arch.
func hsaTree(s *state, p *pyAiter, imported bool) pyjson.Map[pyjson.Map[schema.HSAArch]] {
	var tree pyjson.Map[pyjson.Map[schema.HSAArch]]
	for _, root := range hsaRoots(s, p, imported) {
		entries, err := s.root.ReadDir(root)
		if err != nil {
			s.reason("aiter.hsa_tree: scan failed for %s (%s)", root, pyfmt.ExcType(err))
			continue
		}
		var archs []string
		for _, e := range entries {
			if s.root.IsDir(root + "/" + e.Name()) {
				archs = append(archs, e.Name())
			}
		}
		sort.Strings(archs)
		var m pyjson.Map[schema.HSAArch]
		for _, a := range archs {
			m = append(m, pyjson.Entry[schema.HSAArch]{Key: a, Value: hsaArch(s, root+"/"+a)})
		}
		if len(m) > 0 {
			tree = append(tree, pyjson.Entry[pyjson.Map[schema.HSAArch]]{Key: root, Value: m})
		}
	}
	return tree
}

func hsaArch(s *state, dir string) schema.HSAArch {
	files, err := regularFilesBelow(s.root, dir)
	if err != nil {
		s.reason("aiter.hsa_tree: rglob failed for %s (%s)", dir, pyfmt.ExcType(err))
		return schema.HSAArch{}
	}
	sort.Strings(files)
	co := 0
	type pair struct{ rel, hex string }
	var pairs []pair
	failed := false
	for _, rel := range files {
		if pySuffix(rel) == ".co" {
			co++
		}
		sum, err := s.sha256OfPath(dir + "/" + rel)
		if err != nil {
			s.reason("aiter.hsa_tree: read failed for %s (%s)", dir+"/"+rel, pyfmt.ExcType(err))
			failed = true
			continue
		}
		pairs = append(pairs, pair{rel, strings.TrimPrefix(sum, "sha256:")})
	}
	a := schema.HSAArch{FileCount: schema.Int(len(files)), COCount: schema.Int(co)}
	if !failed {
		sort.Slice(pairs, func(i, j int) bool {
			if pairs[i].rel != pairs[j].rel {
				return pairs[i].rel < pairs[j].rel
			}
			return pairs[i].hex < pairs[j].hex
		})
		d := sha256.New()
		for _, p := range pairs {
			d.Write([]byte(p.rel))
			d.Write([]byte{0})
			d.Write([]byte(p.hex))
			d.Write([]byte{'\n'})
		}
		a.CombinedSHA256 = schema.Str(hex.EncodeToString(d.Sum(nil)))
	}
	return a
}

// regularFilesBelow lists, relative to dir, every regular file (symlinks
// followed for the file test) at any depth; symlinked directories are not
// descended, as Python's Path.rglob.
func regularFilesBelow(root *machine.FS, dir string) ([]string, error) {
	var out []string
	var walk func(rel string) error
	walk = func(rel string) error {
		p := dir
		if rel != "" {
			p += "/" + rel
		}
		entries, err := root.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range entries {
			r := e.Name()
			if rel != "" {
				r = rel + "/" + r
			}
			if e.Type()&fs.ModeSymlink == 0 && e.IsDir() {
				if err := walk(r); err != nil {
					return err
				}
				continue
			}
			if root.IsRegular(dir + "/" + r) {
				out = append(out, r)
			}
		}
		return nil
	}
	return out, walk("")
}
