package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// menuKind is one catalog's member rules
// (docs/rocm-libraries.md#tensile_catalog-filesystem,
// docs/rocm-libraries.md#miopen_catalog-filesystem-the-directory-choice-is-process-scope).
type menuKind struct {
	noun     string   // "Tensile library" | "MIOpen db"
	suffixes []string // canonical lower-case labels, longest first (ties in list order)
	logic    map[string]bool
}

func newMenuKind(noun string, suffixes, logic []string) menuKind {
	k := menuKind{noun: noun, suffixes: append([]string(nil), suffixes...), logic: map[string]bool{}}
	sort.SliceStable(k.suffixes, func(i, j int) bool { return len(k.suffixes[i]) > len(k.suffixes[j]) })
	for _, l := range logic {
		k.logic[l] = true
	}
	return k
}

var (
	// tensileMenu: .hsaco, .yaml, .dat, .txt, .co tested in that order;
	// .dat and .yaml are logic files.
	tensileMenu = newMenuKind("Tensile library",
		[]string{".dat", ".yaml", ".co", ".hsaco", ".txt"}, []string{".dat", ".yaml"})
	// miopenMenu: the two .model heuristic nets are members, not logic.
	miopenMenu = newMenuKind("MIOpen db",
		[]string{".ktn.model", ".tn.model", ".fdb.txt", ".db.txt", ".kdb", ".db"},
		[]string{".kdb", ".fdb.txt", ".db.txt", ".db"})
)

// classify is step 5 of the menu: the first suffix (longest first) the
// lower-cased basename ends with, and whether it is a logic suffix.
func (k menuKind) classify(base string) (suffix string, isLogic, ok bool) {
	lower := pyfmt.Lower(base)
	for _, s := range k.suffixes {
		if strings.HasSuffix(lower, s) {
			return s, k.logic[s], true
		}
	}
	return "", false, false
}

// menuEntry is one candidate member: its display name and machine path.
type menuEntry struct {
	name, path string
	file       schema.MenuFile
}

// menu is the catalog enumeration engine
// (docs/rocm-libraries.md#tensile_catalog-filesystem) over directory dir (a
// relative dir is read against the probe's cwd and shown as given): the
// members of dir and of its gfx* subdirectories (one level), their sizes and
// content hashes, and the combined content hash. An unreadable member or an
// unlistable gfx* directory makes the menu partial, with the reasons of
// docs/rocm-libraries.md#catalog-menus and no combined hash; the counts and
// coverage are those of what was listed. Files are hashed through the
// run's pool several at once. The per-file list is kept only with --extended.
func menu(s *state, dir string, kind menuKind) schema.Menu {
	m := schema.Menu{Status: "partial", Dir: schema.Str(dir)}
	if !s.root.IsDir(dir) {
		m.Reason = schema.Str(kind.noun + " dir missing/unreadable: " + dir)
		return m
	}
	top, err := s.root.ReadDirNames(dir)
	if err != nil {
		m.Reason = schema.Str(kind.noun + " dir not listable: " + dir + " (" + pyfmt.ExcStr(err) + ")")
		return m
	}
	entries, unlisted := menuEntries(s, dir, top, kind)

	paths := make([]string, len(entries))
	for i := range entries {
		paths[i] = entries[i].path
	}
	s.hashAll(paths, func(i int, sum string, err error) {
		f := &entries[i].file
		if err == nil {
			f.SHA256 = &sum
		}
		if fi, err := s.root.Stat(entries[i].path); err == nil {
			size := fi.Size()
			f.Size = &size
		}
	})

	files := make([]schema.MenuFile, len(entries))
	logic, complete := 0, true
	lines := make([]string, len(entries))
	coverage := map[string]bool{}
	for i, e := range entries {
		files[i] = e.file
		if e.file.IsLogic {
			logic++
		}
		if e.file.SHA256 == nil {
			complete = false
		} else {
			lines[i] = e.name + "\t" + *e.file.SHA256
		}
		for _, g := range gfxArch().FindAllString(e.name, -1) {
			coverage[strings.ToLower(g)] = true
		}
	}
	m.LogicFileCount, m.FileCount = schema.Int(logic), schema.Int(len(entries))
	m.GfxArchCoverage = make([]string, 0, len(coverage))
	for g := range coverage {
		m.GfxArchCoverage = append(m.GfxArchCoverage, g)
	}
	sort.Strings(m.GfxArchCoverage) // ASCII: code point order
	if s.opt.Extended {
		m.Files = files
	}
	// Degradations, in this order (docs/rocm-libraries.md#catalog-menus).
	var why []string
	if !complete {
		why = append(why, "one or more "+kind.noun+" files were unreadable")
	}
	if len(unlisted) > 0 {
		pyfmt.Sort(unlisted)
		why = append(why, kind.noun+" arch dir(s) not listable, so their kernels are absent from this catalog: "+strings.Join(unlisted, ", "))
	}
	if len(why) > 0 {
		m.Reason = schema.Str(strings.Join(why, "; "))
		return m
	}
	m.Status = "ok"
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	m.CombinedContentHash = schema.Str("content-sha256:" + hex.EncodeToString(sum[:]))
	return m
}

// menuEntries are the catalog files of kind in dir (listed as top) and in
// its gfx* subdirectories, sorted by name as Python sorts strings, and the
// names of the gfx* directories that could not be listed. Only gfx-named
// entries are stat'ed for the descent: one whose stat fails is ignored.
func menuEntries(s *state, dir string, top []string, kind menuKind) (entries []menuEntry, unlisted []string) {
	add := func(name, path, base string) {
		suf, logic, ok := kind.classify(base)
		if !ok || s.root.IsDir(path) {
			return
		}
		entries = append(entries, menuEntry{name: name, path: path,
			file: schema.MenuFile{Name: name, Suffix: suf, IsLogic: logic}})
	}
	for _, e := range top {
		p := dir + "/" + e
		add(e, p, e)
		if !gfxDirName().MatchString(e) || !s.root.IsDir(p) {
			continue
		}
		sub, err := s.root.ReadDirNames(p)
		if err != nil {
			unlisted = append(unlisted, e)
			continue
		}
		for _, f := range sub {
			add(e+"/"+f, p+"/"+f, f)
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return pyfmt.Less(entries[i].name, entries[j].name) })
	return entries, unlisted
}
