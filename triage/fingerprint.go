package triage

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Fingerprint is the digest of one drift group of a document: every
// identity field diff --fleet compares (flatten) that diff ranks into the
// group (classify), so that two documents have the same Hash for a group
// exactly when diff --fleet finds no difference in it between them, both
// carrying the same optional blocks (fields.go; a document without the
// gpus block hashes an empty hardware group); documents are in the
// canonical form (canonical.go) (docs/fleet.md, "Prometheus").
type Fingerprint struct {
	Group Group
	// Hash is the first 16 hex digits of the SHA-256 of the group's
	// fields, each "path=value\n" (value as --fleet compares it: a GPU
	// attribute is its values and their counts, never an address;
	// gpus.go), in path order.
	Hash string
}

// FingerprintGroups are the groups a Fingerprint is computed for, in rank
// order: every group diff ranks, but "other" (schema_version and fields
// no rule knows) and "placement" (the fleet report's placement block).
var FingerprintGroups = []Group{GroupROCm, GroupDriver, GroupGPU, GroupHardware, GroupLibraries, GroupCatalogs, GroupPython, GroupEnv, GroupHost, GroupTuning}

// Fingerprints returns d's fingerprint of each of FingerprintGroups, in
// that order. A group without any field in d still has a hash (of
// nothing), so every document has every group.
func Fingerprints(d *Document) []Fingerprint {
	byGroup := map[Group][]string{}
	for _, l := range flatten(d) {
		_, g, _ := classify(strings.Split(l.path, "."))
		byGroup[g] = append(byGroup[g], l.path+"="+l.value+"\n")
	}
	out := make([]Fingerprint, 0, len(FingerprintGroups))
	for _, g := range FingerprintGroups {
		lines := byGroup[g]
		slices.Sort(lines)
		h := sha256.New()
		for _, l := range lines {
			h.Write([]byte(l))
		}
		out = append(out, Fingerprint{Group: g, Hash: hex.EncodeToString(h.Sum(nil))[:16]})
	}
	return out
}
