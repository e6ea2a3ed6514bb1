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
	return id
}

// idDecision is what the kernel's identity proves about two documents.
type idDecision struct {
	grade string
	level string
	// because is the proof in words, or what is missing.
	because []string
	// differ are the namespace types whose ids (or, advisory, inode
	// hashes) differ.
	differ []string
	rows   []PlacementField
}

// decideIdentity compares two identity blocks: the boot fingerprint
// first, then the namespace ids; inode hashes only where ids are missing
// on a side (advisory).
func decideIdentity(a, b identity) idDecision {
	var dec idDecision
	if !a.present || !b.present {
		return dec
	}
	bootRow := PlacementField{Key: "probe_provenance.identity.boot", Role: RoleProof, A: strValue(a.boot), B: strValue(b.boot)}
	bootSame := false
	switch {
	case a.boot == nil || b.boot == nil:
		bootRow.State, bootRow.Says = StateMissing, "no boot fingerprint on "+sides(a.boot == nil, b.boot == nil)+" (boot_id unreadable)"
	case *a.boot != *b.boot:
		bootRow.State, bootRow.Says = StateDiffers, "another machine or another boot of it"
		dec.grade, dec.level = GradeProof, LevelAnotherBoot
		dec.because = append(dec.because, "another machine or another boot: the boot fingerprints differ")
	default:
		bootRow.State, bootSame = StateSame, true
	}
	dec.rows = append(dec.rows, bootRow)
	types := slices.Clone(a.types)
	for _, t := range b.types {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	// Ids on both sides, per type; where a side lacks one, the inode hash.
	var idDiffer, unbootedDiffer, inoDiffer, compared, advisoryOnly []string
	for _, t := range types {
		ia, aok := a.ids[t]
		ib, bok := b.ids[t]
		row := PlacementField{Key: "probe_provenance.identity." + t, Role: RoleProof}
		bootsDiffer := a.boot != nil && b.boot != nil && !bootSame
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
				compared = append(compared, t)
			case bootSame:
				row.State, row.Says = StateDiffers, "another "+t+" namespace (the kernel never reuses an id during a boot)"
				idDiffer = append(idDiffer, t)
			default:
				// Without both boot fingerprints, different ids are still
				// different places: another namespace, or another boot.
				row.State, row.Says = StateDiffers, "another "+t+" namespace, or another boot (no boot fingerprint on "+sides(a.boot == nil, b.boot == nil)+")"
				unbootedDiffer = append(unbootedDiffer, t)
			}
		default:
			// No id on a side, or equal ids without both boot
			// fingerprints (ids are small counters: every boot has a 4):
			// the inode hashes, advisory.
			ha, hb := a.inodes[t], b.inodes[t]
			row.A, row.B = strValue(ptr(ha)), strValue(ptr(hb))
			row.Role = RoleEvidence
			switch {
			case ha == "" || hb == "":
				row.State, row.Says = StateMissing, "no comparable id and no inode hash on "+sides(ha == "", hb == "")
			case ha != hb:
				row.State, row.Says = StateDiffers, "another "+t+" namespace, or another boot (inode hashes)"
				inoDiffer = append(inoDiffer, t)
			default:
				row.State, row.Says = StateSame, "advisory: the kernel reuses namespace inodes"
				advisoryOnly = append(advisoryOnly, t)
			}
		}
		dec.rows = append(dec.rows, row)
	}
	if dec.level != "" {
		return dec
	}
	switch {
	case bootSame && len(idDiffer) > 0:
		dec.grade, dec.level, dec.differ = GradeProof, LevelAnotherNamespace, idDiffer
		dec.because = append(dec.because, "same machine and boot, another namespace: "+strings.Join(idDiffer, ", "))
	case len(unbootedDiffer) > 0:
		dec.grade, dec.level, dec.differ = GradeProof, LevelAnotherNamespace, unbootedDiffer
		dec.because = append(dec.because, "another namespace, or another boot: "+strings.Join(unbootedDiffer, ", "))
	case bootSame && slices.Contains(compared, "mnt") && len(inoDiffer) == 0:
		dec.grade, dec.level = GradeProof, LevelSamePlace
	case len(inoDiffer) > 0:
		// A different inode is a different namespace at the time of each
		// probe (or another boot): a proof of a different place.
		dec.grade, dec.level, dec.differ = GradeAdvisory, LevelAnotherNamespace, inoDiffer
		what := "another namespace, or another boot: "
		if bootSame {
			what = "same machine and boot, another namespace: "
		}
		dec.because = append(dec.because, what+strings.Join(inoDiffer, ", ")+" (inode hashes)")
	case len(advisoryOnly) > 0:
		dec.grade, dec.level = GradeAdvisory, LevelSamePlace
	}
	return dec
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
