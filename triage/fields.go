package triage

import (
	"fmt"
	"strings"
	"sync"

	"aorta-probe/internal/knobs"
)

// The field classes: what triage does with each field of a document, the
// one table diff, diff --fleet, metrics and labels read (docs/triage.md,
// "Field classes"). A new field is classified by one line in
// fieldClasses; the ranking of identity differences is rules.go's, the
// verdict conclude's (verdict.go).

// fieldClass is what triage does with a field.
type fieldClass int

const (
	// classIdentity is compared by diff, tallied by --fleet and hashed
	// into the drift fingerprints (metrics, labels). Unlisted fields are
	// identity.
	classIdentity fieldClass = iota
	// classPlacement says where the document was taken: diff shows it in
	// the placement block (its role says how it weighs on the verdict),
	// never among the identity differences; --fleet tallies it (group
	// placement when it is a proof) and the fingerprints hash it.
	classPlacement
	// classPerNode holds a value of its own on every node, namespace or
	// card by design (ids, serials): diff compares it (in the placement
	// block when it has a role), --fleet never tallies it (no value can
	// have a majority) and no fingerprint hashes it.
	classPerNode
	// classHardware is a block projected onto fields every node shares,
	// which are then identity: the GPUs as described
	// (probe_provenance.gpus, gpus.go) and the tuning settings
	// (probe_provenance.tuning, tuning.go).
	classHardware
	// classIgnored is never compared: the capture's time and timings,
	// command records, reasons that repeat a status, constant doc strings.
	classIgnored
)

// role is how a field of diff's placement block weighs on the verdict
// (conclude, verdict.go).
type role int

const (
	// roleNone: not in the placement block.
	roleNone role = iota
	// roleRunbook: different values prove different places; absent or
	// null on a side is "cannot tell". Where the kernel's ids decide it is
	// evidence only.
	roleRunbook
	// roleBoot: describes the running kernel, shared by every container
	// of a machine: a difference is another machine or another boot.
	roleBoot
	// roleEvidence: differing keeps the verdict from "same place" when
	// nothing proves it; never overrides a proof.
	roleEvidence
	// roleInfo: shown, never weighs.
	roleInfo
)

// field classifies the fields under a dotted path pattern: "*" matches
// one key, "devices[]" every device of probe_provenance.gpus. The longest
// matching pattern wins.
type field struct {
	pattern string
	class   fieldClass
	role    role
	// says is what a difference of a placement field means.
	says string
	// without marks an optional block, which older aorta-probes (or
	// --no-provenance) do not write: a field under it is compared only
	// between documents that both carry it, and --fleet says once
	// "N documents " + without.
	without string
}

// fieldClasses is the table. The placement block of diff lists the fields with
// a role in this order.
var fieldClasses = []field{
	// The placement block: proofs, then evidence, then information.
	{pattern: "runtime_context.type", class: classPlacement, role: roleRunbook, says: "another container runtime, or none"},
	{pattern: "container_detected", class: classPlacement, role: roleRunbook, says: "one side saw an isolation boundary the other did not"},
	{pattern: "probe_namespace", class: classPerNode, role: roleRunbook}, // namespaceState says
	{pattern: "amdgpu_driver.kfd_device_present", class: classPlacement, role: roleRunbook, says: "/dev/kfd is visible on one side only: the GPUs are not reachable the same way"},
	{pattern: "host.kernel_release", class: classPlacement, role: roleBoot, says: "another running kernel: another machine, VM or boot"},
	{pattern: "host.kernel_version", class: classPlacement, role: roleBoot, says: "another running kernel build: another machine, VM or boot"},
	{pattern: "host.machine", class: classPlacement, role: roleBoot, says: "another CPU architecture"},
	{pattern: "rocm.kmd_version", class: classPlacement, role: roleBoot, says: "another loaded amdgpu module: another host"},
	{pattern: "docker.container_id", class: classPerNode, role: roleEvidence, says: "another container id in the cgroup path"},
	{pattern: "probe_provenance.isolation", class: classIgnored, role: roleEvidence}, // isolationSays
	{pattern: "probe_provenance.placement.suggests", class: classIgnored, role: roleEvidence, says: "the Buck2 placement markers point to different executors"},
	{pattern: "execution_context.probe_invocation", class: classPlacement, role: roleInfo, says: "self-declared by the caller: not evidence"},
	{pattern: "probe_provenance.root", class: classIgnored, role: roleInfo, says: "different filesystem roots were described (--root)"},
	// Placement, not in the block: how the probe was invoked; the loaded
	// module (rocm.kmd_version proves).
	{pattern: "execution_context", class: classPlacement},
	{pattern: "amdgpu_driver.kmd_version", class: classPlacement},

	{pattern: "nics.*.card.uuid", class: classPerNode},

	// probe_provenance describes the capture (timings, commands, the
	// probe's build), but for these blocks, which describe the place. Its
	// identity block is read apart (identityOf: the verdict, the fleet's
	// places).
	{pattern: "probe_provenance", class: classIgnored, without: "without probe_provenance (another probe, or --no-provenance)"},
	{pattern: "probe_provenance.os_release", class: classIdentity, without: "from an older aorta-probe (no os_release block)"},
	{pattern: "probe_provenance.rocm_installs", class: classIdentity, without: "from an older aorta-probe (no rocm_installs block)"},
	{pattern: "probe_provenance.gpus", class: classHardware, without: "from an older aorta-probe (no gpus block)"},
	// What identifies a GPU or a place rather than describes it: the
	// chip's serial, the PCI address (the same board in another slot),
	// the XGMI hive's id (membership is compared as hives), a sysfs path
	// and why it was not read (the fields it would give are compared).
	{pattern: "probe_provenance.gpus.devices[].unique_id", class: classPerNode},
	{pattern: "probe_provenance.gpus.devices[].pci", class: classPerNode},
	{pattern: "probe_provenance.gpus.devices[].hive_id", class: classPerNode},
	{pattern: "probe_provenance.gpus.devices[].drm_device", class: classPerNode},
	{pattern: "probe_provenance.gpus.devices[].drm_reason", class: classPerNode},
	{pattern: "probe_provenance.gpus.devices[].reasons", class: classPerNode},
	// The tuning settings (tuning.go): a setting is compared by its value,
	// or why it is null (node_unread, gpus[].unread), never where it is
	// read (sources: paths under --root; a GPU's dir); a GPU's address and
	// XGMI hive id identify it; of a deviation the setting, family and
	// guide are compared (the value through the setting, the scope is an
	// address, the section and why are the guide's text); the state is
	// per-moment, never drift; the reason quotes paths (the unread
	// settings are compared).
	{pattern: "probe_provenance.tuning", class: classHardware, without: "from an older aorta-probe (no tuning block)"},
	{pattern: "probe_provenance.tuning.sources", class: classIgnored},
	{pattern: "probe_provenance.tuning.gpus[].pci", class: classPerNode},
	{pattern: "probe_provenance.tuning.gpus[].dir", class: classPerNode},
	{pattern: "probe_provenance.tuning.gpus[].settings.xgmi_hive_id", class: classPerNode},
	{pattern: "probe_provenance.tuning.deviations[].scope", class: classPerNode},
	{pattern: "probe_provenance.tuning.deviations[].value", class: classIgnored},
	{pattern: "probe_provenance.tuning.deviations[].guide_value", class: classIgnored},
	{pattern: "probe_provenance.tuning.deviations[].section", class: classIgnored},
	{pattern: "probe_provenance.tuning.deviations[].why", class: classIgnored},
	{pattern: "probe_provenance.tuning.state", class: classIgnored},
	{pattern: "probe_provenance.tuning.reason", class: classIgnored},
	// The running kernel: host.kernel_release compares it (a boot proof).
	{pattern: "probe_provenance.tuning.node.kernel_release", class: classIgnored},

	// Noise: the partial flag and reasons (the fields they explain are
	// compared instead), the constant catalog doc strings, reason texts
	// that repeat a status, the per-file catalog lists of --extended (the
	// combined hash covers them).
	{pattern: "captured_at", class: classIgnored},
	{pattern: "partial", class: classIgnored},
	{pattern: "partial_reasons", class: classIgnored},
	{pattern: "tensile_catalog.doc", class: classIgnored},
	{pattern: "miopen_catalog.doc", class: classIgnored},
	{pattern: "rocfft_catalog.doc", class: classIgnored},
	{pattern: "tensile_catalog.*.menu.files", class: classIgnored},
	{pattern: "tensile_catalog.*.menu.reason", class: classIgnored},
	{pattern: "miopen_catalog.menu.files", class: classIgnored},
	{pattern: "miopen_catalog.menu.reason", class: classIgnored},
	{pattern: "rocfft_catalog.kernel_cache.reason", class: classIgnored},
}

// fieldTable is fieldClasses compiled once.
type fieldTable struct {
	rows [][]string // each field's pattern, split at the dots
	// firstKeys are the first keys of the patterns, and env_vars: a path
	// starting elsewhere is identity without a look at the table.
	firstKeys map[string]bool
	knobs     map[string]knobs.Knob
	// placement are the fields of diff's placement block, in order.
	placement []field
	// optional are the optional blocks, parents first; provenance are
	// the identity blocks of probe_provenance (walked apart: the
	// provenance block itself is ignored).
	optional, provenance []string
	without              []string // optional's notes
}

var fieldsOnce = sync.OnceValue(func() *fieldTable {
	t := &fieldTable{firstKeys: map[string]bool{"env_vars": true}, knobs: map[string]knobs.Knob{}}
	for _, f := range fieldClasses {
		keys := strings.Split(f.pattern, ".")
		t.rows = append(t.rows, keys)
		t.firstKeys[keys[0]] = true
		if f.role != roleNone {
			t.placement = append(t.placement, f)
		}
		if f.without != "" {
			t.optional, t.without = append(t.optional, f.pattern), append(t.without, f.without)
		}
		if f.class == classIdentity && len(keys) == 2 && keys[0] == "probe_provenance" {
			t.provenance = append(t.provenance, keys[1])
		}
	}
	if len(t.optional) > 8 {
		panic("triage: more optional blocks than a blockSet holds")
	}
	for _, k := range knobs.All() {
		t.knobs[k.Name] = k
	}
	return t
})

// fieldOf is the table's row for path (the longest matching pattern), or
// nil.
func fieldOf(path []string) *field {
	t := fieldsOnce()
	if !t.firstKeys[path[0]] {
		return nil
	}
	best := -1
	for i, keys := range t.rows {
		if match(keys, path) && (best < 0 || len(keys) > len(t.rows[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	return &fieldClasses[best]
}

// classOf classifies a field path; env_vars names off the canonical
// knob list are ignored.
func classOf(path []string) fieldClass {
	if len(path) == 2 && path[0] == "env_vars" && !canonicalKnob(path[1]) {
		return classIgnored
	}
	if f := fieldOf(path); f != nil {
		return f.class
	}
	return classIdentity
}

// skipped reports whether a two-document diff leaves a path out of the
// identity differences: ignored, placement, a per-node field of the
// placement block, or hardware (compared through its projection).
func skipped(path []string) bool {
	f := fieldOf(path)
	switch {
	case len(path) == 2 && path[0] == "env_vars" && !canonicalKnob(path[1]):
		return true
	case f == nil:
		return false
	case f.class == classPerNode:
		return f.role != roleNone
	}
	return f.class != classIdentity
}

// tallied reports whether --fleet tallies a path (and the fingerprints
// hash it): identity, placement and (projected) hardware fields.
func tallied(path []string) bool {
	c := classOf(path)
	return c == classIdentity || c == classPlacement || c == classHardware
}

// deviceFields are the device attributes of probe_provenance.gpus of a
// class (their last key).
func deviceFields(c fieldClass) []string {
	var out []string
	for _, f := range fieldClasses {
		if f.class == c && strings.HasPrefix(f.pattern, devicesKey) {
			out = append(out, strings.TrimPrefix(f.pattern, devicesKey))
		}
	}
	return out
}

// match reports whether pattern's keys are a prefix of path's.
func match(pattern, path []string) bool {
	if len(pattern) > len(path) {
		return false
	}
	for i, p := range pattern {
		if p != "*" && p != path[i] {
			return false
		}
	}
	return true
}

// canonicalKnob reports whether name is on the registry's canonical list;
// env_vars keys off the list are not compared.
func canonicalKnob(name string) bool {
	_, ok := fieldsOnce().knobs[name]
	return ok
}

// blockSet is a set of the optional blocks (fieldTable.optional), bit i
// for the i-th.
type blockSet uint8

// lacking is the optional blocks d does not carry; a document without
// probe_provenance lacks every block under it too. A null gpus block
// lacks too: gpuLeaves projects nothing from it, as from none (and a
// null tuning block: tuningLeaves).
func lacking(d *Document) blockSet {
	var s blockSet
	for i, p := range fieldsOnce().optional {
		v, ok := d.Lookup(p)
		if !ok || (v == nil && (p == gpusKey || p == tuningKey)) {
			s |= 1 << i
		}
	}
	return s
}

// blocksOver is the optional blocks a field path lies under.
func blocksOver(path string) blockSet {
	var s blockSet
	for i, p := range fieldsOnce().optional {
		if path == p || strings.HasPrefix(path, p+".") {
			s |= 1 << i
		}
	}
	return s
}

// lackingNotes says once per optional block how many of the documents
// lack it, when others carry it: a document is counted under its
// outermost missing block only.
func lackingNotes(lacks []blockSet) []string {
	t := fieldsOnce()
	counts, carriers := make([]int, len(t.optional)), make([]int, len(t.optional))
	for _, s := range lacks {
		counted := false
		for i := range t.optional {
			switch {
			case s&(1<<i) == 0:
				carriers[i]++
			case !counted:
				counts[i]++
				counted = true
			}
		}
	}
	var notes []string
	for i, without := range t.without {
		if n := counts[i]; n > 0 && carriers[i] > 0 {
			notes = append(notes, fmt.Sprintf("%d document%s %s", n, plural(n), without))
		}
	}
	return notes
}
