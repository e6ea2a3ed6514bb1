package triage

import (
	"slices"
	"strings"
)

// The one home of the placement verdict (docs/triage.md, "Verdicts"):
// conclude turns what the placement rows found into a level, a grade and
// the reasons. diff concludes on two documents (Compare), --fleet on two
// places of one boot (placeNotes).

// findings is what the rows of a placement block found.
type findings struct {
	// The kernel's identity (decideIdentity): the boot fingerprints
	// recorded and equal, or recorded and different; the namespace ids
	// and inode hashes; the root.
	bootSame, bootsDiffer bool
	ns                    nsFindings
	root                  rootFinding
	// The placement fields of the table with a role (fields.go), each
	// difference or gap in words: a running-kernel field differs
	// (roleBoot), a runbook field differs or is missing, an evidence
	// field differs.
	bootProofs, proofs, missing, evidence []string
	// container: a container marker differs too (containerWord), so
	// another namespace reads "another container".
	container bool
}

// conclusion is a verdict's level, grade and reasons.
type conclusion struct {
	level, grade string
	because      []string
}

// conclude decides. The kernel's proofs first (kernelSays): the boot
// fingerprints, a running-kernel field, the namespace ids, the root; then
// the same place they prove; then the older proof fields, what is missing
// and the evidence; else the same place, advisory. Evidence never
// overrides a proof.
func conclude(f findings) conclusion {
	k := f.kernelSays()
	switch {
	case k.level == LevelAnotherBoot || len(f.bootProofs) > 0:
		c := conclusion{LevelAnotherBoot, GradeProof, append(k.because, f.bootProofs...)}
		if k.level != LevelAnotherBoot {
			c.grade = GradeAdvisory
		}
		return c
	case k.level == LevelAnotherNamespace:
		first := k.because[0]
		if f.container {
			first = strings.Replace(first, "another namespace", "another container", 1)
		}
		return conclusion{k.level, k.grade, append([]string{first}, f.proofs...)}
	case k.level == LevelAnotherRoot:
		return conclusion{k.level, k.grade, append(k.because, f.proofs...)}
	case k.grade == GradeProof: // same boot, every id recorded on both sides equal
		return conclusion{LevelSamePlace, GradeProof, nil}
	case len(f.proofs) > 0:
		return conclusion{LevelAnotherNamespace, GradeAdvisory, f.proofs}
	case len(f.missing) > 0:
		return conclusion{LevelCannotTell, GradeNone, f.missing}
	case len(f.evidence) > 0:
		return conclusion{LevelCannotTell, GradeNone, f.evidence}
	}
	return conclusion{LevelSamePlace, GradeAdvisory, nil}
}

// kernelSays is what the kernel's identity alone proves: different boot
// fingerprints; on one boot a namespace id or the root's unique mount id
// that differs, or every id equal with mnt among them; then, advisory, the
// inode hashes and the root's device and inode. Its grade is proof only
// where the ids decided: then the runbook fields are evidence.
func (f findings) kernelSays() conclusion {
	ns, root, bootSame := f.ns, f.root, f.bootSame
	anew := either(bootSame, "same machine and boot, another namespace: ", "another namespace, or another boot: ")
	aroot := either(bootSame, "same machine and boot, another root", "another root, or another boot")
	switch {
	case f.bootsDiffer:
		return conclusion{LevelAnotherBoot, GradeProof, []string{"another machine or another boot: the boot fingerprints differ"}}
	case bootSame && len(ns.idDiffer) > 0:
		return conclusion{LevelAnotherNamespace, GradeProof, []string{anew + strings.Join(ns.idDiffer, ", ")}}
	case len(ns.unbootedDiffer) > 0:
		return conclusion{LevelAnotherNamespace, GradeProof, []string{"another namespace, or another boot: " + strings.Join(ns.unbootedDiffer, ", ")}}
	case root.differs && root.proof:
		return conclusion{LevelAnotherRoot, GradeProof, []string{aroot}}
	case bootSame && slices.Contains(ns.compared, "mnt") && len(ns.inoDiffer) == 0 && !root.differs:
		return conclusion{LevelSamePlace, GradeProof, nil}
	case len(ns.inoDiffer) > 0:
		// A different inode is a different namespace at the time of each
		// probe (or another boot).
		return conclusion{LevelAnotherNamespace, GradeAdvisory, []string{anew + strings.Join(ns.inoDiffer, ", ") + " (inode hashes)"}}
	case root.differs:
		// A root directory keeps its inode: another inode is another
		// directory (or another boot).
		return conclusion{LevelAnotherRoot, GradeAdvisory, []string{aroot + " (device and inode)"}}
	case len(ns.advisoryOnly) > 0:
		return conclusion{LevelSamePlace, GradeAdvisory, nil}
	}
	return conclusion{}
}

// verdict is the first line of diff for a conclusion: "same place" becomes
// "same place, different software" when identity fields differ, and
// carries the advisory suffix when only inode hashes decided.
func (c conclusion) verdict(differences bool) string {
	switch c.level {
	case LevelCannotTell:
		return CannotTell
	case LevelSamePlace:
		v := SamePlace
		if differences {
			v = DifferentSoftware
		}
		if c.grade != GradeProof {
			v += Advisory
		}
		return v
	}
	return DifferentPlaces
}
