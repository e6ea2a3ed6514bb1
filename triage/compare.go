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
	// Because holds the proofs (different places), what is missing or
	// unequal (cannot tell), one sentence each; empty otherwise.
	Because     []string
	Placement   []PlacementField
	Differences []Difference
}

// ExitCode is diff(1)'s: 0 when the verdict is "same place" and nothing
// differs, 1 otherwise.
func (r *Result) ExitCode() int {
	if r.Verdict == SamePlace && len(r.Differences) == 0 {
		return 0
	}
	return 1
}

// Compare diffs two documents: the placement block decides the verdict,
// the identity fields are ranked.
func Compare(a, b *Document) *Result {
	r := &Result{
		A: side(a), B: side(b),
	}
	proofs, missing, evidence := r.placement(a, b)
	r.Differences = differences(a, b)
	switch {
	case len(proofs) > 0:
		r.Verdict, r.Because = DifferentPlaces, proofs
	case len(missing) > 0:
		r.Verdict, r.Because = CannotTell, missing
	case len(evidence) > 0:
		r.Verdict, r.Because = CannotTell, evidence
	case len(r.Differences) > 0:
		r.Verdict = DifferentSoftware
	default:
		r.Verdict = SamePlace
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
	// runbook fields are required for "same place": absent or null is
	// "cannot tell".
	runbook bool
	says    string
}

var proofFields = []proofField{
	{"runtime_context.type", true, "another container runtime, or none"},
	{"container_detected", true, "one side saw an isolation boundary the other did not"},
	{"probe_namespace", true, ""}, // placementNamespace
	{"amdgpu_driver.kfd_device_present", true, "/dev/kfd is visible on one side only: the GPUs are not reachable the same way"},
	{"host.kernel_release", false, "another running kernel: another machine, VM or boot"},
	{"host.kernel_version", false, "another running kernel build: another machine, VM or boot"},
	{"host.machine", false, "another CPU architecture"},
	{"rocm.kmd_version", false, "another loaded amdgpu module: another host"},
}

func (r *Result) placement(a, b *Document) (proofs, missing, evidence []string) {
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
		switch {
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
		ev("docker.container_id", valueOf(av, aok), valueOf(bv, bok), "another container id in the cgroup path")
	}
	if r.A.Provenance && r.B.Provenance {
		ev("probe_provenance.isolation", firedSignals(a), firedSignals(b),
			"other isolation signals fired (another namespace the mount hash does not cover?)")
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
	return proofs, missing, evidence
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
	// Only the distribution and the ROCm installs from the provenance
	// block are identity (provenanceIdentity); each is compared when both
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
	for _, key := range provenanceIdentity {
		av, aok := a.Lookup("probe_provenance." + key)
		bv, bok := b.Lookup("probe_provenance." + key)
		if aok && bok {
			walk(av, aok, bv, bok, []string{"probe_provenance", key})
		}
	}
	slices.SortStableFunc(out, func(x, y Difference) int { return x.Rank - y.Rank })
	return out
}
