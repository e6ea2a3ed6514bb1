package triage

import (
	"fmt"
	"slices"
	"strings"
)

// fleetPlace is where one fleet document was taken, from
// probe_provenance.identity (docs/isolation.md#placement-identity).
type fleetPlace struct {
	boot string // boot fingerprint, "" when not recorded
	mnt  string // mount namespace id, "" when not recorded
	// root is identity.root: "mount ID" (the root's unique mount id) or
	// "inode MAJOR:MINOR/INODE" (device and inode alone); "" when not
	// recorded. A chroot shares every namespace and differs here only.
	root string
}

func placeOf(d *Document) fleetPlace {
	id := identityOf(d)
	// Clone: a decoded string is a slice of the document's text, which
	// must not stay alive with the tally (one whole document per node).
	p := fleetPlace{mnt: strings.Clone(id.ids["mnt"])}
	if id.boot != nil {
		p.boot = strings.Clone(*id.boot)
	}
	if r := id.root; r != nil {
		switch {
		case r.mount != "":
			p.root = "mount " + r.mount
		case r.file != "":
			p.root = "inode " + r.file
		}
		p.root = strings.Clone(p.root)
	}
	return p
}

// FleetGroup is one group of a fleet split without a strict majority:
// the documents that agree on every splitting field.
type FleetGroup struct {
	Size   int
	Values []FleetGroupValue // the splitting fields, in rank order
	Names  []string
}

// FleetGroupValue is a splitting field's value in one group.
type FleetGroupValue struct {
	Key   string
	Value Value
}

// splits reports whether a field without a strict majority splits the
// fleet into groups: a software, driver, GPU, placement or knob field. Host
// fields (NICs, health), tuning settings (memory size, CPU count) and
// unranked fields vary by node by nature.
func splits(g Group) bool { return g != GroupHost && g != GroupTuning && g != GroupOther }

// groups partitions the documents by the values of the splitting fields
// without a strict majority, largest group first.
func (t *tally) groups(split []int) []FleetGroup {
	if len(split) == 0 {
		return nil
	}
	byKey := map[string]*FleetGroup{}
	var order []string
	for di, row := range t.rows {
		var key strings.Builder
		vals := make([]FleetGroupValue, 0, len(split))
		for _, fi := range split {
			var id int32
			if fi < len(row) {
				id = row[fi]
			}
			fmt.Fprintf(&key, "%d,", id)
			vals = append(vals, FleetGroupValue{Key: t.fields[fi].path, Value: t.fields[fi].value(id)})
		}
		g := byKey[key.String()]
		if g == nil {
			g = &FleetGroup{Values: vals}
			byKey[key.String()] = g
			order = append(order, key.String())
		}
		g.Size++
		g.Names = append(g.Names, t.names[di])
	}
	var out []FleetGroup
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	slices.SortStableFunc(out, func(a, b FleetGroup) int { return b.Size - a.Size })
	return out
}

// placeNotes says what the documents' identities show about where they
// were taken: several boots, several namespaces of one boot, or copies
// of one place. A document records no machine id: two boots may be two
// machines or one rebooted.
func (t *tally) placeNotes() []string {
	type where struct{ mnt, root string }
	boots := map[string]map[where]int{} // boot → mount namespace and root → documents
	var order []string
	missing := 0
	for _, p := range t.places {
		if p.boot == "" {
			missing++
			continue
		}
		if boots[p.boot] == nil {
			boots[p.boot] = map[where]int{}
			order = append(order, p.boot)
		}
		boots[p.boot][where{p.mnt, p.root}]++
	}
	var notes []string
	switch {
	case len(order) == 1:
		what := fmt.Sprintf("%d documents come", len(t.places)-missing)
		if len(t.places)-missing == 1 {
			what = "1 document comes"
		}
		notes = append(notes, fmt.Sprintf("%s from one machine and boot (%s)", what, order[0]))
	case len(order) > 1:
		notes = append(notes, fmt.Sprintf("the documents come from %d boots: %d machines, or reboots of fewer", len(order), len(order)))
	}
	if missing > 0 {
		notes = append(notes, fmt.Sprintf("%d document%s without a boot fingerprint (older aorta-probe or no /proc)", missing, plural(missing)))
	}
	// One line per boot with several documents, after the summary lines
	// (the reports cut this list without --all: FleetResult.cutPlaces).
	for _, b := range order {
		places := boots[b]
		n := 0
		var ws []where
		for w, c := range places {
			n += c
			ws = append(ws, w)
		}
		if n < 2 {
			continue
		}
		// How far apart the places are, as diff concludes (verdict.go):
		// the first of them against each other one.
		slices.SortFunc(ws, func(x, y where) int { return strings.Compare(x.mnt+" "+x.root, y.mnt+" "+y.root) })
		level := LevelSamePlace
		for _, w := range ws {
			_, f := decideIdentity(fleetPlace{b, ws[0].mnt, ws[0].root}.identity(), fleetPlace{b, w.mnt, w.root}.identity())
			c := conclude(f)
			switch {
			case c.level == LevelAnotherNamespace:
				level = c.level
			case c.level == LevelAnotherRoot && level != LevelAnotherNamespace:
				level = c.level
			case c.level != LevelSamePlace || c.grade != GradeProof:
				if level == LevelSamePlace {
					level = ""
				}
			}
		}
		switch level {
		case LevelAnotherNamespace:
			notes = append(notes, fmt.Sprintf("%s: %d documents from %d containers or namespaces of one machine (mount namespace ids differ)", b, n, len(places)))
		case LevelAnotherRoot:
			// One mount namespace, several roots: chroots.
			notes = append(notes, fmt.Sprintf("%s: %d documents from %d roots of one mount namespace (roots differ: chroots)", b, n, len(places)))
		case LevelSamePlace:
			notes = append(notes, fmt.Sprintf("%s: %d documents from one place (mount namespace id %s): copies or reruns", b, n, ws[0].mnt))
		}
	}
	return notes
}

// identity is the kernel's identity a fleet place keeps, for
// decideIdentity: the boot fingerprint, the mount namespace id, the root.
func (p fleetPlace) identity() identity {
	id := identity{present: true, boot: &p.boot, types: []string{"mnt"}, ids: map[string]string{}, inodes: map[string]string{}}
	if p.mnt != "" {
		id.ids["mnt"] = p.mnt
	}
	switch kind, v, _ := strings.Cut(p.root, " "); kind {
	case "mount":
		id.root = &rootIdentity{mount: v}
	case "inode":
		id.root = &rootIdentity{file: v}
	}
	return id
}
