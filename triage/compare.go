package triage

import (
	"fmt"
	"slices"
	"strings"
)

// The four verdicts (docs/triage.md, "Verdicts").
const (
	SamePlace         = "same place"
	DifferentPlaces   = "different places"
	DifferentSoftware = "same place, different software"
	CannotTell        = "cannot tell"
)

// Value is one side of a comparison.
type Value struct {
	// Present is false when the key does not exist in the document (an
	// older schema, or a null parent block).
	Present bool
	// JSON is the value as compact JSON, or for a bulky array/object a
	// "<N items, sha256 …>" digest (Digest true).
	JSON   string
	Digest bool
	// text is the value for people where it is not JSON's: a GPU
	// attribute over the devices (gpus.go), "" otherwise.
	text string
}

func valueOf(v any, ok bool) Value {
	if !ok {
		return Value{}
	}
	s := shown(v)
	return Value{Present: true, JSON: s, Digest: strings.HasPrefix(s, "<")}
}

// Text is the value for people: strings unquoted, "absent" when missing.
func (v Value) Text() string {
	switch {
	case v.text != "":
		return v.text
	case !v.Present:
		return "absent"
	case v.Digest:
		return v.JSON
	case strings.HasPrefix(v.JSON, `"`):
		var s string
		if x, err := decodeJSON(v.JSON); err == nil {
			s, _ = x.(string)
		}
		return s
	}
	return v.JSON
}

func (v Value) isNull() bool { return !v.Present || v.JSON == "null" }

// Difference is one identity field that differs.
type Difference struct {
	Key   string
	Group Group
	Rank  int
	A, B  Value
	Why   string
}

// Placement roles: a proof alone makes the places different; evidence
// differing keeps the verdict from "same place"; info is shown only.
const (
	RoleProof    = "proof"
	RoleEvidence = "evidence"
	RoleInfo     = "info"
)

// Placement states.
const (
	StateSame          = "same"
	StateDiffers       = "differs"
	StateMissing       = "missing"
	StateNotComparable = "not_comparable"
)

// PlacementField is one line of the placement block.
type PlacementField struct {
	Key   string
	Role  string
	State string
	A, B  Value
	// Says is what the state means, one sentence.
	Says string
}

// Side describes one input document.
type Side struct {
	Name       string
	Schema     string
	Provenance bool
}

// Result is the outcome of Compare.
type Result struct {
	A, B    Side
	Verdict string
	// Level is how far apart the two places are: another_boot,
	// another_namespace, another_root, same_place or cannot_tell.
	Level string
	// Grade is what decided: proof (the kernel's boot fingerprint,
	// namespace ids and root mount id), advisory (namespace inode hashes,
	// which the kernel reuses, the root's device and inode, or the older
	// proof fields), or none.
	Grade string
	// Because holds the proofs (different places), what is missing or
	// unequal (cannot tell), one sentence each; empty otherwise.
	Because []string
	// Evidence explains the verdict (a local Buck2 action, a replay, a
	// container id); it never overrides a proof.
	Evidence    []string
	Placement   []PlacementField
	Differences []Difference
}

// ExitCode is diff(1)'s: 0 when the verdict is "same place" (a proof, or
// advisory) and nothing differs, 1 otherwise.
func (r *Result) ExitCode() int {
	if (r.Verdict == SamePlace || r.Verdict == SamePlace+Advisory) && len(r.Differences) == 0 {
		return 0
	}
	return 1
}

// Compare diffs two documents. The kernel's proofs decide first
// (docs/triage.md, "Verdicts"): the boot fingerprints, then the namespace
// ids; evidence explains and never overrides them. Without ids on a side,
// the older proof fields and the namespace inode hashes decide, and an
// equal hash is advisory (conclude, verdict.go). The identity fields are
// ranked.
func Compare(a, b *Document) *Result {
	r := &Result{A: side(a), B: side(b)}
	ia, ib := identityOf(a), identityOf(b)
	var f findings
	r.Placement, f = decideIdentity(ia, ib)
	r.placement(a, b, &f, f.kernelSays().grade == GradeProof)
	f.container = containerWord(a, b) == "container"
	r.Differences = differences(a, b)
	r.Evidence = explain(a, b, ia, ib)
	c := conclude(f)
	r.Level, r.Grade, r.Because = c.level, c.grade, c.because
	r.Verdict = c.verdict(len(r.Differences) > 0)
	return r
}

func side(d *Document) Side {
	_, prov := d.Lookup("probe_provenance")
	return Side{Name: d.Name, Schema: d.Schema, Provenance: prov}
}

// placement adds a row for each placement field of the table (fields.go,
// in its order) and files what it found in f. With proven set (the
// kernel's ids decided), the runbook fields are evidence: they neither
// prove nor leave the verdict open.
func (r *Result) placement(a, b *Document, f *findings, proven bool) {
	for _, fd := range fieldsOnce().placement {
		av, bv, shown := placementValues(fd, a, b)
		if !shown {
			continue
		}
		pf := PlacementField{Key: fd.pattern, A: av, B: bv, State: StateSame}
		switch fd.role {
		case roleRunbook, roleBoot:
			pf.Role = RoleProof
			pf.State, pf.Says = proofState(fd, av, bv)
			if proven && fd.role == roleRunbook {
				pf.Role = RoleEvidence
				if fd.pattern == "probe_namespace" && pf.State == StateSame {
					pf.Says = "advisory: the kernel reuses namespace inodes; the ids decide"
				}
			} else {
				f.file(fd, pf)
			}
		case roleEvidence:
			pf.Role = RoleEvidence
			if av != bv {
				pf.State, pf.Says = StateDiffers, evidenceSays(fd, a, b, av, bv)
				f.evidence = append(f.evidence, fmt.Sprintf("%s differs: %s", fd.pattern, pf.Says))
			}
		case roleInfo:
			pf.Role = RoleInfo
			if av != bv {
				pf.State, pf.Says = StateDiffers, fd.says
			}
		}
		r.Placement = append(r.Placement, pf)
	}
}

// placementValues are a placement field's values and whether the block
// shows it: a proof always; evidence under an optional block when both
// documents carry the block; other evidence and information when a side
// has it.
func placementValues(fd field, a, b *Document) (av, bv Value, shown bool) {
	get := func(d *Document) Value {
		if fd.pattern == "probe_provenance.isolation" {
			return firedSignals(d)
		}
		v, ok := d.Lookup(fd.pattern)
		return valueOf(v, ok)
	}
	av, bv = get(a), get(b)
	switch {
	case fd.role == roleRunbook || fd.role == roleBoot:
		return av, bv, true
	case fd.role == roleEvidence && blocksOver(fd.pattern)&(lacking(a)|lacking(b)) != 0:
		return av, bv, false
	}
	return av, bv, av.Present || bv.Present
}

// proofState compares a proof field: null or absent on a side is
// missing (the same on both sides for a runbook field says so), equal is
// the same, different is what the field says.
func proofState(fd field, av, bv Value) (state, says string) {
	switch {
	case fd.pattern == "probe_namespace":
		return namespaceState(av, bv)
	case av.isNull() || bv.isNull():
		if av != bv {
			return StateMissing, whichMissing(av, bv, fd.pattern)
		}
		if fd.role == roleRunbook {
			return StateSame, whichMissing(av, bv, fd.pattern)
		}
		return StateSame, ""
	case av.JSON == bv.JSON:
		return StateSame, ""
	}
	return StateDiffers, fd.says
}

// file adds what a proof row found: a difference proves (another boot
// for a running-kernel field), a runbook field missing leaves the verdict
// open.
func (f *findings) file(fd field, pf PlacementField) {
	switch {
	case pf.State == StateDiffers && fd.role == roleBoot:
		f.bootProofs = append(f.bootProofs, fmt.Sprintf("%s differs: %s", fd.pattern, pf.Says))
	case pf.State == StateDiffers:
		f.proofs = append(f.proofs, fmt.Sprintf("%s differs: %s", fd.pattern, pf.Says))
	case fd.role == roleRunbook && (pf.State == StateMissing || pf.State == StateNotComparable || pf.A.isNull()):
		f.missing = append(f.missing, pf.Says)
	}
}

// evidenceSays words a difference of an evidence field.
func evidenceSays(fd field, a, b *Document, av, bv Value) string {
	switch {
	case fd.pattern == "probe_provenance.isolation":
		return isolationSays(a, b)
	case fd.pattern == "docker.container_id" && av.isNull() != bv.isNull():
		return "a container id in the cgroup path on " + sides(!av.isNull(), !bv.isNull()) + " only"
	}
	return fd.says
}

// namespaceState compares probe_namespace: a different value of the same
// kind proves different observations (another mount namespace, or another
// boot: the boot id salts the hash); equality is advisory.
func namespaceState(a, b Value) (string, string) {
	if a.isNull() || b.isNull() {
		return StateMissing, whichMissing(a, b, "probe_namespace")
	}
	ka, kb := nsKind(a.Text()), nsKind(b.Text())
	switch {
	case ka != kb:
		return StateNotComparable, fmt.Sprintf("probe_namespace kinds differ (%s vs %s): the hashes are not comparable", ka, kb)
	case a.JSON == b.JSON:
		return StateSame, ""
	case ka == "mnt":
		return StateDiffers, "another mount namespace, or another boot"
	case ka == "cgroup-ns":
		return StateDiffers, "another cgroup namespace, or another boot"
	}
	return StateDiffers, "another " + ka + " namespace handle"
}

func nsKind(s string) string {
	k, _, _ := strings.Cut(s, ":")
	return k
}

// whichMissing says which side lacks key, and how.
func whichMissing(a, b Value, key string) string {
	state := func(v Value) string {
		switch {
		case !v.Present:
			return "absent"
		case v.JSON == "null":
			return "null"
		}
		return ""
	}
	sa, sb := state(a), state(b)
	why := map[string]string{"absent": " (an older schema)", "null": ""}
	if key == "probe_namespace" {
		why["null"] = " (no readable /proc/self/ns: see partial_reasons)"
	}
	switch {
	case sa == "" && sb == "":
		return ""
	case sa == sb:
		return key + " is " + sa + " in A and B" + why[sa]
	case sa == "":
		return key + " is " + sb + " in B" + why[sb]
	case sb == "":
		return key + " is " + sa + " in A" + why[sa]
	}
	return key + " is " + sa + " in A" + why[sa] + ", " + sb + " in B" + why[sb]
}

// isolationSays words a difference of the fired isolation signals: which
// fired on one side only, and, when they are all about the mount
// namespace, that the mount namespace differs (which the namespace ids and
// probe_namespace cover).
func isolationSays(a, b *Document) string {
	fa, fb := firedNames(a), firedNames(b)
	var onlyA, onlyB []string
	for _, n := range fa {
		if !slices.Contains(fb, n) {
			onlyA = append(onlyA, n)
		}
	}
	for _, n := range fb {
		if !slices.Contains(fa, n) {
			onlyB = append(onlyB, n)
		}
	}
	var parts []string
	if len(onlyA) > 0 {
		parts = append(parts, "fired in A only: "+strings.Join(onlyA, ", "))
	}
	if len(onlyB) > 0 {
		parts = append(parts, "fired in B only: "+strings.Join(onlyB, ", "))
	}
	if len(parts) == 0 {
		return "the isolation verdicts differ"
	}
	says := strings.Join(parts, "; ")
	if !slices.ContainsFunc(append(onlyA, onlyB...), func(n string) bool { return !strings.HasPrefix(n, "mnt_ns_") }) {
		says += " (another mount namespace: the namespace ids and probe_namespace say it)"
	}
	return says
}

func firedNames(d *Document) []string {
	v, _ := d.Lookup("probe_provenance.isolation.signals")
	list, _ := v.([]any)
	var out []string
	for _, sg := range list {
		sm, _ := sg.(object)
		f, _ := sm.Get("fired")
		n, _ := sm.Get("name")
		if name, ok := n.(string); ok && f == true {
			out = append(out, name)
		}
	}
	return out
}

// firedSignals is probe_provenance.isolation as "verdict: a, b".
func firedSignals(d *Document) Value {
	v, ok := d.Lookup("probe_provenance.isolation")
	if !ok {
		return Value{}
	}
	m, _ := v.(object)
	verdict, _ := lookup(m, []string{"verdict"})
	s, _ := verdict.(string)
	var fired []string
	sigs, _ := lookup(m, []string{"signals"})
	list, _ := sigs.([]any)
	for _, sg := range list {
		sm, _ := sg.(object)
		f, _ := sm.Get("fired")
		n, _ := sm.Get("name")
		if f == true {
			name, _ := n.(string)
			fired = append(fired, name)
		}
	}
	if len(fired) > 0 {
		s += ": " + strings.Join(fired, ", ")
	}
	return Value{Present: true, JSON: compact(s)}
}

// differences walks both documents in parallel and ranks every identity
// leaf that differs.
func differences(a, b *Document) []Difference {
	var out []Difference
	aroot, broot := a.root, b.root
	// Of the provenance block only its identity blocks (fields.go: the
	// distribution, the ROCm installs) are; each is compared when both
	// documents carry it.
	var walk func(av any, aok bool, bv any, bok bool, path []string)
	walk = func(av any, aok bool, bv any, bok bool, path []string) {
		if len(path) > 0 && skipped(path) {
			return
		}
		am, aobj := av.(object)
		bm, bobj := bv.(object)
		if aobj && bobj {
			for _, e := range am {
				x, ok := bm.Get(e.Key)
				walk(e.Value, true, x, ok, append(path[:len(path):len(path)], e.Key))
			}
			for _, e := range bm {
				if _, ok := am.Get(e.Key); !ok {
					walk(nil, false, e.Value, true, append(path[:len(path):len(path)], e.Key))
				}
			}
			return
		}
		va, vb := valueOf(av, aok), valueOf(bv, bok)
		if va == vb {
			return
		}
		rank, group, why := classify(path)
		out = append(out, Difference{Key: strings.Join(path, "."), Group: group, Rank: rank, A: va, B: vb, Why: why})
	}
	walk(aroot, true, broot, true, nil)
	for _, key := range fieldsOnce().provenance {
		av, aok := a.Lookup("probe_provenance." + key)
		bv, bok := b.Lookup("probe_provenance." + key)
		if aok && bok {
			walk(av, aok, bv, bok, []string{"probe_provenance", key})
		}
	}
	// The GPUs, projected onto fields every node shares (gpus.go).
	out = append(out, hardwareDifferences(a, b)...)
	// The tuning settings, projected likewise (tuning.go).
	out = append(out, tuningDifferences(a, b)...)
	slices.SortStableFunc(out, func(x, y Difference) int { return x.Rank - y.Rank })
	return out
}
