package triage

import (
	"fmt"
	"slices"
	"strings"
)

// Levels of a placement verdict (docs/triage.md, "Verdicts"), as the JSON
// "level" says them.
const (
	LevelAnotherBoot      = "another_boot"
	LevelAnotherNamespace = "another_namespace"
	LevelAnotherRoot      = "another_root"
	LevelSamePlace        = "same_place"
	LevelCannotTell       = "cannot_tell"
)

// Grades of a verdict: proof (the kernel's never-reused ids and the boot
// fingerprint decided), advisory (only namespace inode hashes, which the
// kernel reuses), none (nothing comparable).
const (
	GradeProof    = "proof"
	GradeAdvisory = "advisory"
	GradeNone     = "none"
)

// Advisory is appended to a "same place" verdict decided on inode hashes.
const Advisory = " (advisory: namespace inodes are reused)"

// identity is probe_provenance.identity of one document
// (docs/isolation.md#placement-identity); present is false for a document
// without it (older aorta-probe, --no-provenance, another probe).
type identity struct {
	present bool
	boot    *string
	capture bool // answered_by capture: a replay
	ids     map[string]string
	inodes  map[string]string
	types   []string // the types recorded, in the document's order
	root    *rootIdentity
}

// rootIdentity is identity.root: the unique mount id of the root ("" when
// the kernel gave none, or only the reused STATX_MNT_ID), and its device
// and inode as "major:minor/inode" ("" when unknown).
type rootIdentity struct {
	mount, file string
}

func identityOf(d *Document) identity {
	v, ok := d.Lookup("probe_provenance.identity")
	m, isObj := v.(object)
	if !ok || !isObj {
		return identity{}
	}
	id := identity{present: true, ids: map[string]string{}, inodes: map[string]string{}}
	if fp, _ := lookup(m, []string{"boot", "fingerprint"}); fp != nil {
		if s, ok := fp.(string); ok {
			id.boot = &s
		}
	}
	if by, _ := m.Get("answered_by"); by == "capture" {
		id.capture = true
	}
	nss, _ := m.Get("namespaces")
	list, _ := nss.([]any)
	for _, e := range list {
		em, _ := e.(object)
		t, _ := em.Get("type")
		kind, _ := t.(string)
		if kind == "" {
			continue
		}
		id.types = append(id.types, kind)
		if n, _ := em.Get("id"); n != nil {
			id.ids[kind] = shown(n)
		}
		if h, _ := em.Get("inode_hash"); h != nil {
			if s, ok := h.(string); ok {
				id.inodes[kind] = s
			}
		}
	}
	if r, _ := m.Get("root"); r != nil {
		rm, _ := r.(object)
		id.root = &rootIdentity{}
		if src, _ := rm.Get("source"); src == "STATX_MNT_ID_UNIQUE" {
			if n, _ := rm.Get("mount_id"); n != nil {
				id.root.mount = shown(n)
			}
		}
		dev, _ := rm.Get("device")
		ino, _ := rm.Get("inode")
		if ds, ok := dev.(string); ok && ino != nil {
			id.root.file = ds + "/" + shown(ino)
		}
	}
	return id
}

// nsFindings sorts the namespace types by what their rows found.
type nsFindings struct {
	// idDiffer: ids differ on one boot; unbootedDiffer: ids differ
	// without both boot fingerprints; inoDiffer: inode hashes differ;
	// compared: ids equal on one boot; advisoryOnly: inode hashes equal.
	idDiffer, unbootedDiffer, inoDiffer, compared, advisoryOnly []string
}

// rootFinding is what the root rows found: differs (proof: by the unique
// mount id, or by the inode on one unique mount), or differs advisory (by
// device and inode alone).
type rootFinding struct {
	differs, proof bool
}

// decideIdentity compares two identity blocks: the boot fingerprint
// first, then the namespace ids and the root's unique mount id; inode
// hashes, and the root's device and inode, only where ids are missing on
// a side (advisory). It returns the placement rows and what they found;
// conclude (verdict.go) decides.
func decideIdentity(a, b identity) ([]PlacementField, findings) {
	var f findings
	if !a.present || !b.present {
		return nil, f
	}
	boot := bootRow(a, b)
	rows := []PlacementField{boot}
	f.bootSame, f.bootsDiffer = boot.State == StateSame, boot.State == StateDiffers
	for _, t := range unionTypes(a.types, b.types) {
		rows = append(rows, f.ns.row(a, b, t, f.bootSame, f.bootsDiffer))
	}
	if a.root != nil || b.root != nil {
		var row PlacementField
		row, f.root = rootRow(a, b, f.bootSame, f.bootsDiffer)
		rows = append(rows, row)
	}
	return rows, f
}

// bootRow is the boot fingerprints' row: missing on a side (boot_id
// unreadable), different (another machine or another boot) or the same.
func bootRow(a, b identity) PlacementField {
	row := PlacementField{Key: "probe_provenance.identity.boot", Role: RoleProof, A: strValue(a.boot), B: strValue(b.boot)}
	switch {
	case a.boot == nil || b.boot == nil:
		row.State, row.Says = StateMissing, "no boot fingerprint on "+sides(a.boot == nil, b.boot == nil)+" (boot_id unreadable)"
	case *a.boot != *b.boot:
		row.State, row.Says = StateDiffers, "another machine or another boot of it"
	default:
		row.State = StateSame
	}
	return row
}

func unionTypes(a, b []string) []string {
	types := slices.Clone(a)
	for _, t := range b {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	return types
}

// row is the placement row of namespace type t: the ids where both sides
// have one; where a side lacks one, the inode hashes (advisory). It files
// t under what it found.
func (f *nsFindings) row(a, b identity, t string, bootSame, bootsDiffer bool) PlacementField {
	ia, aok := a.ids[t]
	ib, bok := b.ids[t]
	row := PlacementField{Key: "probe_provenance.identity." + t, Role: RoleProof}
	switch {
	case bootsDiffer:
		row.Role, row.State = RoleInfo, StateNotComparable
		row.A, row.B = Value{Present: aok, JSON: ia}, Value{Present: bok, JSON: ib}
		if !aok {
			row.A = strValue(nil)
		}
		if !bok {
			row.B = strValue(nil)
		}
		row.Says = "ids of different boots are not comparable"
	case aok && bok && (bootSame || ia != ib):
		row.A, row.B = Value{Present: true, JSON: ia}, Value{Present: true, JSON: ib}
		switch {
		case ia == ib:
			row.State = StateSame
			f.compared = append(f.compared, t)
		case bootSame:
			row.State, row.Says = StateDiffers, "another "+t+" namespace (the kernel never reuses an id during a boot)"
			f.idDiffer = append(f.idDiffer, t)
		default:
			// Without both boot fingerprints, different ids are still
			// different places: another namespace, or another boot.
			row.State, row.Says = StateDiffers, "another "+t+" namespace, or another boot (no boot fingerprint on "+sides(a.boot == nil, b.boot == nil)+")"
			f.unbootedDiffer = append(f.unbootedDiffer, t)
		}
	default:
		// No id on a side, or equal ids without both boot fingerprints
		// (ids are small counters: every boot has a 4): the inode
		// hashes, advisory.
		ha, hb := a.inodes[t], b.inodes[t]
		row.A, row.B = strValue(ptr(ha)), strValue(ptr(hb))
		row.Role = RoleEvidence
		switch {
		case ha == "" || hb == "":
			row.State, row.Says = StateMissing, "no comparable id and no inode hash on "+sides(ha == "", hb == "")
		case ha != hb:
			row.State, row.Says = StateDiffers, "another "+t+" namespace, or another boot (inode hashes)"
			f.inoDiffer = append(f.inoDiffer, t)
		default:
			row.State, row.Says = StateSame, "advisory: the kernel reuses namespace inodes"
			f.advisoryOnly = append(f.advisoryOnly, t)
		}
	}
	return row
}

// rootRow is the placement row of the root (identity.root): on one boot,
// unique mount ids that differ, or one unique mount whose root inodes
// differ (a chroot into a directory of it), prove another root; device
// and inode alone are advisory.
func rootRow(a, b identity, bootSame, bootsDiffer bool) (PlacementField, rootFinding) {
	ra, rb := a.root, b.root
	row := PlacementField{Key: "probe_provenance.identity.root", Role: RoleProof, A: rootValue(ra), B: rootValue(rb)}
	var f rootFinding
	switch {
	case ra == nil || rb == nil:
		row.Role, row.State, row.Says = RoleEvidence, StateMissing, "no root identity on "+sides(ra == nil, rb == nil)+" (an older aorta-probe)"
	case bootsDiffer:
		row.Role, row.State, row.Says = RoleInfo, StateNotComparable, "mount ids of different boots are not comparable"
	case ra.mount != "" && rb.mount != "" && ra.mount != rb.mount:
		row.State, f = StateDiffers, rootFinding{differs: true, proof: true}
		row.Says = "another root: another mount of / (the kernel never reuses a mount id during a boot)"
		if !bootSame {
			row.Says = "another root, or another boot (no boot fingerprint on " + sides(a.boot == nil, b.boot == nil) + ")"
		}
	case bootSame && ra.mount != "" && ra.mount == rb.mount && ra.file != "" && rb.file != "":
		row.State = StateSame
		if ra.file != rb.file {
			row.State, row.Says, f = StateDiffers, "another root: another directory of the same mount (a chroot)", rootFinding{differs: true, proof: true}
		}
	default:
		row.Role = RoleEvidence
		switch {
		case ra.file == "" || rb.file == "":
			row.State, row.Says = StateMissing, "no unique mount id and no device and inode on "+sides(ra.file == "", rb.file == "")
		case ra.file != rb.file:
			row.State, row.Says, f = StateDiffers, "another root directory, or another boot (device and inode)", rootFinding{differs: true}
		default:
			row.State, row.Says = StateSame, "advisory: no unique mount id on "+sides(ra.mount == "", rb.mount == "")
		}
	}
	return row, f
}

func rootValue(r *rootIdentity) Value {
	if r == nil {
		return Value{}
	}
	s := "mount " + r.mount
	if r.mount == "" {
		s = "mount null"
	}
	if r.file != "" {
		s += ", device/inode " + r.file
	}
	return strValue(&s)
}

// either is yes when cond holds, else no.
func either(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func strValue(s *string) Value {
	if s == nil {
		return Value{Present: true, JSON: "null"}
	}
	return Value{Present: true, JSON: compact(*s)}
}

func sides(a, b bool) string {
	switch {
	case a && b:
		return "A and B"
	case a:
		return "A"
	}
	return "B"
}

// containerWord says "container" when the two sides differ in a container
// marker (another container id, runtime or container_detected), else
// "namespace".
func containerWord(a, b *Document) string {
	for _, k := range []string{"docker.container_id", "runtime_context.type", "container_detected"} {
		av, aok := a.Lookup(k)
		bv, bok := b.Lookup(k)
		if valueOf(av, aok) != valueOf(bv, bok) {
			return "container"
		}
	}
	return "namespace"
}

// explainSide is evidence about where one side ran, in words: a local
// Buck2 action, a replay, a container.
func explainSide(name string, d *Document, id identity) []string {
	var out []string
	if id.capture {
		out = append(out, name+" is a replay of a capture: its identity is the captured process's")
	}
	if v, ok := d.Lookup("probe_provenance.placement.suggests"); ok {
		switch v {
		case "local_action":
			out = append(out, name+" ran as a local Buck2 action (the local executor's markers are set)")
		case "remote_action":
			out = append(out, name+" carries a Buck2 action's markers without the local executor's (an RE worker?)")
		case "local_test":
			out = append(out, name+" was started by a local buck2 daemon (test or run)")
		}
	}
	if v, ok := d.Lookup("docker.container_id"); ok && v != nil {
		out = append(out, fmt.Sprintf("%s ran in container %s (cgroup path)", name, shortID(shown(v))))
	}
	return out
}

// explain is the evidence of both sides; a fact both share is said once.
func explain(a, b *Document, ia, ib identity) []string {
	ea, eb := explainSide("A", a, ia), explainSide("B", b, ib)
	var out []string
	for _, e := range ea {
		if twin := "B" + e[1:]; slices.Contains(eb, twin) {
			out = append(out, "A and B"+e[1:])
			eb = slices.DeleteFunc(eb, func(x string) bool { return x == twin })
			continue
		}
		out = append(out, e)
	}
	return append(out, eb...)
}

func shortID(s string) string {
	s = strings.Trim(s, `"`)
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
