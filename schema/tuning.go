package schema

import "aorta-probe/internal/pyjson"

// Tuning is the node and GPU settings AMD's Instinct guides name, as /proc
// and /sys show them, judged against those guides (docs/tuning.md; the fact
// sheet is tuning.md, rows K1–K20, G1–G13, H1–H15). Every value is a file
// read through the probed root; nothing is run.
//
// Values are kept bare (a string, number, bool or list; null when not
// read) and where each was read is said once, in Sources, so that the
// block of an 8-GPU node stays small (docs/tuning.md, "Shape").
type Tuning struct {
	// Family is the rule set applied: MI300 for gfx942 parts (MI300X,
	// MI308X, MI325X, MI300A), MI350 for gfx950 (MI350X, MI355X), from
	// probe_provenance.gpus devices' gfx_target; null when no Instinct GPU
	// was seen (values recorded, nothing judged).
	Family *string `py:"family"`
	// Product is the Instinct product of the first GPU, from its PCI device
	// id (0x74a1 MI300X, 0x74a2 MI308X, 0x74a5 MI325X, 0x74a0 MI300A,
	// 0x75a0 MI350X, 0x75a3 MI355X); null for another id.
	Product *string `py:"product"`
	// Node is every node-wide setting (docs/tuning.md, "Node settings"), by setting name, in
	// the table's order: the value as parsed, null when not read
	// (NodeUnread says why).
	Node pyjson.Map[pyjson.Any] `py:"node"`
	// NodeUnread is every node setting whose value is null, with why:
	// "absent" (no such file: the kernel or driver does not expose it) or
	// the error's name when the file is there but could not be read or
	// parsed (EACCES, EPERM, EINVAL for a FIFO or device node, EFBIG for
	// more than a page, EFORMAT for content not in the file's format, ECAP
	// for a GPU past the cap on GPUs read).
	NodeUnread pyjson.Map[string] `py:"node_unread"`
	// GPUs are the per-GPU settings (docs/tuning.md, "GPU settings"), one per
	// probe_provenance.gpus.devices[] entry, in the same order.
	GPUs []TuningGPU `py:"gpus"`
	// Sources says where each setting is read: node settings by name (the
	// path under the probed root), per-GPU ones as "gpus.<setting>" (the
	// path under TuningGPU.Dir; hwmon/hwmon* is the device's first hwmon
	// directory).
	Sources pyjson.Map[string] `py:"sources"`
	// Checked is how many rules were judged (0 when Family is null).
	Checked int `py:"checked"`
	// Deviations is every rule a value breaks, in the rule table's order.
	Deviations []TuningDeviation `py:"deviations"`
	// State is the per-moment health and state of the GPUs (docs/tuning.md, "Not in the default run"),
	// read only with --tuning-state; null in the default run.
	State *TuningState `py:"state"`
	// Reason says why the block could not be read at all, or null.
	Reason *string `py:"reason"`
}

// TuningGPU is the settings of one physical GPU.
type TuningGPU struct {
	// PCI is the device's address as in probe_provenance.gpus.devices[].pci
	// (the join key), or null where that is null.
	PCI *string `py:"pci"`
	// Dir is the device directory read, /sys/bus/pci/devices/<pci>, or
	// null with PCI.
	Dir *string `py:"dir"`
	// Settings are its settings (docs/tuning.md, "GPU settings"), by name, in the table's
	// order; null when not read (Unread says why). The partition modes,
	// VRAM size and NUMA node are in probe_provenance.gpus.devices[]
	// already and are not repeated.
	Settings pyjson.Map[pyjson.Any] `py:"settings"`
	// Unread is every setting whose value is null, with why, as
	// Tuning.NodeUnread; a GPU whose settings were not read at all has
	// empty Settings and one entry "*": "absent" (no PCI address, so no
	// device directory) or "ECAP" (past the cap on GPUs read).
	Unread pyjson.Map[string] `py:"unread"`
}

// TuningDeviation is one rule a value breaks.
type TuningDeviation struct {
	// Setting is a node key, or "gpus.<setting>" for a per-GPU one.
	Setting string `py:"setting"`
	// Scope is "node" for node settings and for GPUs that disagree with
	// each other, else the PCI address of the GPU.
	Scope string `py:"scope"`
	// Value is what was found, as the brief shows it.
	Value string `py:"value"`
	// GuideValue is what the guide recommends.
	GuideValue string `py:"guide_value"`
	// Guide is the AMD document by name, as tuning.md cites it.
	Guide string `py:"guide"`
	// Section is the guide's section.
	Section string `py:"section"`
	// Family is the rule set the rule belongs to (MI300 or MI350).
	Family string `py:"family"`
	// Why is one line on why the setting matters.
	Why string `py:"why"`
}

// TuningState is the per-moment state read with --tuning-state.
type TuningState struct {
	// GPUs are the state values of each GPU, in the order of Tuning.GPUs.
	GPUs []TuningStateGPU `py:"gpus"`
	// Sources says where each value is read, under TuningGPU.Dir.
	Sources pyjson.Map[string] `py:"sources"`
}

// TuningStateGPU is the state of one GPU.
type TuningStateGPU struct {
	// PCI is the device's address, as TuningGPU.PCI.
	PCI *string `py:"pci"`
	// Values are the state values by name (docs/tuning.md, "Not in the default run"), each file read
	// once; null when not read (Unread says why).
	Values pyjson.Map[pyjson.Any] `py:"values"`
	// Unread is every value that is null, with why, as Tuning.NodeUnread.
	Unread pyjson.Map[string] `py:"unread"`
}
