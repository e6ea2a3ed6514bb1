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
// equal hash is advisory. The identity fields are ranked.
func Compare(a, b *Document) *Result {
	r := &Result{A: side(a), B: side(b)}
	ia, ib := identityOf(a), identityOf(b)
	dec := decideIdentity(ia, ib)
	proven := dec.grade == GradeProof
	bootProofs, proofs, missing, evidence := r.placement(a, b, proven)
	r.Placement = append(dec.rows, r.Placement...)
	r.Differences = differences(a, b)
	r.Evidence = explain(a, b, ia, ib)
	switch {
	case dec.level == LevelAnotherBoot || len(bootProofs) > 0:
		r.Verdict, r.Level, r.Because = DifferentPlaces, LevelAnotherBoot, append(dec.because, bootProofs...)
		r.Grade = GradeProof
		if dec.level != LevelAnotherBoot {
			r.Grade = GradeAdvisory
		}
	case dec.level == LevelAnotherNamespace:
		r.Verdict, r.Level, r.Grade = DifferentPlaces, LevelAnotherNamespace, dec.grade
		r.Because = []string{strings.Replace(dec.because[0], "another namespace", "another "+containerWord(a, b), 1)}
		r.Because = append(r.Because, proofs...)
	case dec.level == LevelAnotherRoot:
		r.Verdict, r.Level, r.Grade = DifferentPlaces, LevelAnotherRoot, dec.grade
		r.Because = append(dec.because, proofs...)
	case proven: // same boot, every id recorded on both sides equal
		r.Level, r.Grade, r.Verdict = LevelSamePlace, GradeProof, SamePlace
		if len(r.Differences) > 0 {
			r.Verdict = DifferentSoftware
		}
	case len(proofs) > 0:
		r.Verdict, r.Level, r.Grade, r.Because = DifferentPlaces, LevelAnotherNamespace, GradeAdvisory, proofs
	case len(missing) > 0:
		r.Verdict, r.Level, r.Grade, r.Because = CannotTell, LevelCannotTell, GradeNone, missing
	case len(evidence) > 0:
		r.Verdict, r.Level, r.Grade, r.Because = CannotTell, LevelCannotTell, GradeNone, evidence
	default:
		r.Level, r.Grade, r.Verdict = LevelSamePlace, GradeAdvisory, SamePlace+Advisory
		if len(r.Differences) > 0 {
			r.Verdict = DifferentSoftware + Advisory
		}
	}
	return r
}

func side(d *Document) Side {
	_, prov := d.Lookup("probe_provenance")
	return Side{Name: d.Name, Schema: d.Schema, Provenance: prov}
}

// proofField is a field whose inequality (both sides non-null) proves two
// places differ.
type proofField struct {
	key string
	// runbook fields are required for "same place" when the kernel's ids
	// do not decide: absent or null is "cannot tell". Where the ids decide
	// they are evidence only.
	runbook bool
	// boot fields describe the running kernel: a difference is another
	// machine or another boot.
	boot bool
	says string
}

var proofFields = []proofField{
	{"runtime_context.type", true, false, "another container runtime, or none"},
	{"container_detected", true, false, "one side saw an isolation boundary the other did not"},
	{"probe_namespace", true, false, ""}, // namespaceState
	{"amdgpu_driver.kfd_device_present", true, false, "/dev/kfd is visible on one side only: the GPUs are not reachable the same way"},
	{"host.kernel_release", false, true, "another running kernel: another machine, VM or boot"},
	{"host.kernel_version", false, true, "another running kernel build: another machine, VM or boot"},
	{"host.machine", false, true, "another CPU architecture"},
	{"rocm.kmd_version", false, true, "another loaded amdgpu module: another host"},
}

// placement fills the placement block. With proven set (the kernel's ids
// decided), the runbook fields are evidence: they neither prove nor leave
// the verdict open.
func (r *Result) placement(a, b *Document, proven bool) (bootProofs, proofs, missing, evidence []string) {
	for _, f := range proofFields {
		av, aok := a.Lookup(f.key)
		bv, bok := b.Lookup(f.key)
		pf := PlacementField{Key: f.key, Role: RoleProof, A: valueOf(av, aok), B: valueOf(bv, bok)}
		if f.key == "probe_namespace" {
			pf.State, pf.Says = namespaceState(pf.A, pf.B)
		} else {
			switch {
			case pf.A.isNull() || pf.B.isNull():
				if pf.A == pf.B {
					pf.State = StateSame
				} else {
					pf.State = StateMissing
				}
				pf.Says = whichMissing(pf.A, pf.B, f.key)
				if pf.State == StateSame && !f.runbook {
					pf.Says = ""
				}
			case pf.A.JSON == pf.B.JSON:
				pf.State = StateSame
			default:
				pf.State, pf.Says = StateDiffers, f.says
			}
		}
		if proven && f.runbook {
			pf.Role = RoleEvidence
			if f.key == "probe_namespace" && pf.State == StateSame {
				pf.Says = "advisory: the kernel reuses namespace inodes; the ids decide"
			}
			r.Placement = append(r.Placement, pf)
			continue
		}
		switch {
		case pf.State == StateDiffers && f.boot:
			bootProofs = append(bootProofs, fmt.Sprintf("%s differs: %s", f.key, pf.Says))
		case pf.State == StateDiffers:
			proofs = append(proofs, fmt.Sprintf("%s differs: %s", f.key, pf.Says))
		case f.runbook && (pf.State == StateMissing || pf.State == StateNotComparable || pf.A.isNull()):
			missing = append(missing, pf.Says)
		}
		r.Placement = append(r.Placement, pf)
	}

	ev := func(key string, av, bv Value, says string) {
		pf := PlacementField{Key: key, Role: RoleEvidence, A: av, B: bv, State: StateSame}
		if av != bv {
			pf.State, pf.Says = StateDiffers, says
			evidence = append(evidence, fmt.Sprintf("%s differs: %s", key, says))
		}
		r.Placement = append(r.Placement, pf)
	}
	av, aok := a.Lookup("docker.container_id")
	bv, bok := b.Lookup("docker.container_id")
	if aok || bok {
		says := "another container id in the cgroup path"
		if x, y := valueOf(av, aok), valueOf(bv, bok); x.isNull() != y.isNull() {
			says = "a container id in the cgroup path on " + sides(!x.isNull(), !y.isNull()) + " only"
		}
		ev("docker.container_id", valueOf(av, aok), valueOf(bv, bok), says)
	}
	if r.A.Provenance && r.B.Provenance {
		fa, fb := firedSignals(a), firedSignals(b)
		ev("probe_provenance.isolation", fa, fb, isolationSays(a, b))
		av, aok = a.Lookup("probe_provenance.placement.suggests")
		bv, bok = b.Lookup("probe_provenance.placement.suggests")
		ev("probe_provenance.placement.suggests", valueOf(av, aok), valueOf(bv, bok),
			"the Buck2 placement markers point to different executors")
	}
	for _, key := range []string{"execution_context.probe_invocation", "probe_provenance.root"} {
		av, aok := a.Lookup(key)
		bv, bok := b.Lookup(key)
		if !aok && !bok {
			continue
		}
		pf := PlacementField{Key: key, Role: RoleInfo, A: valueOf(av, aok), B: valueOf(bv, bok), State: StateSame}
		if pf.A != pf.B {
			pf.State = StateDiffers
			pf.Says = map[string]string{
				"execution_context.probe_invocation": "self-declared by the caller: not evidence",
				"probe_provenance.root":              "different filesystem roots were described (--root)",
			}[key]
		}
		r.Placement = append(r.Placement, pf)
	}
	return bootProofs, proofs, missing, evidence
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
	slices.SortStableFunc(out, func(x, y Difference) int { return x.Rank - y.Rank })
	return out
}
