// Package labels is `aorta-probe labels [DOC|-] [OUT] [flags]`: a
// document as a Node Feature Discovery local-source feature file
// (triage.Labels, docs/fleet.md).
package labels

import (
	"aorta-probe/cli/capture"
	"aorta-probe/triage"
)

const usage = `Usage: aorta-probe labels [DOC|-] [OUT] [flags]

Write the document DOC (- for standard input) as a Node Feature Discovery
feature file (features.d, the local source): a small, stable set of node
labels (ROCm and HIP versions, gfx targets, GPU count, partition modes,
driver version, container runtime, PyTorch version, a short environment
fingerprint), each name=value valid as a Kubernetes label. Without DOC, one capture runs first
with the capture's flags (aorta-probe --help). OUT is written atomically
(or -o OUT); without it, standard output. The labels and the DaemonSet of
deploy/kubernetes/: docs/fleet.md.

Exit status: 0 when written, 1 when DOC cannot be read or OUT written,
2 for a usage error.
`

// Run is the command (capture.Derived).
var Run = capture.Derived{Name: "labels", Usage: usage, Derive: func(d *triage.Document) []byte {
	return triage.FeatureFile(triage.Labels(d))
}}.Run
