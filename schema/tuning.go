package schema

import "aorta-probe/internal/pyjson"

// Tuning is the node and GPU settings AMD's Instinct guides name, as /proc
// and /sys show them, judged against those guides (docs/tuning.md; the fact
// sheet is tuning.md, rows K1–K20, G1–G13, H1–H15). Every value is a file
// read through the probed root; nothing is run.
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
	// Node is every node-wide setting (tuning.md §1), by setting name, in
	// the table's order.
	Node pyjson.Map[TuningValue] `py:"node"`
	// GPUs are the per-GPU settings (tuning.md §2), one per
	// probe_provenance.gpus.devices[] entry, in the same order.
	GPUs []TuningGPU `py:"gpus"`
	// Checked is how many rules were judged (0 when Family is null).
	Checked int `py:"checked"`
	// Deviations is every rule a value breaks, in the rule table's order.
	Deviations []TuningDeviation `py:"deviations"`
	// State is the per-moment health and state of the GPUs (tuning.md §3),
	// read only with --tuning-state; null in the default run.
	State *TuningState `py:"state"`
	// Reason says why the block could not be read at all, or null.
	Reason *string `py:"reason"`
}

// TuningValue is one setting as read.
type TuningValue struct {
	// Value is the setting as parsed (a string, number, bool or list), or
	// null when the file was absent or unreadable.
	Value pyjson.Any `py:"value"`
	// Source is the path read, as the kernel names it (under the probed
	// root).
	Source string `py:"source"`
	// Status is read, absent (no such file: the kernel or driver does not
	// expose it) or unreadable (the file is there; Errno says why).
	Status string `py:"status"`
	// Errno is the error's name (EACCES, EPERM, EINVAL, …) when Status is
	// unreadable, or a short word for a refusal of the probe's own
	// (ETOOBIG, EFIFO, ELINK, EFORMAT); null otherwise.
	Errno *string `py:"errno"`
}

// TuningGPU is the settings of one physical GPU.
type TuningGPU struct {
	// PCI is the device's address as in probe_provenance.gpus.devices[].pci
	// (the join key), or null where that is null.
	PCI *string `py:"pci"`
	// Settings are its settings (tuning.md §2), by name, in the table's
	// order; read from /sys/bus/pci/devices/<pci>.
	Settings pyjson.Map[TuningValue] `py:"settings"`
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
}

// TuningStateGPU is the state of one GPU.
type TuningStateGPU struct {
	// PCI is the device's address, as TuningGPU.PCI.
	PCI *string `py:"pci"`
	// Values are the state values by name (tuning.md §3), each file read
	// once.
	Values pyjson.Map[TuningValue] `py:"values"`
}
