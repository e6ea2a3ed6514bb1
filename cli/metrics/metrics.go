// Package metrics is `aorta-probe metrics [DOC|-] [OUT] [flags]`: a
// document as Prometheus metrics for node_exporter's textfile collector
// (triage.Metrics, docs/fleet.md).
package metrics

import (
	"aorta-probe/cli/capture"
	"aorta-probe/triage"
)

const usage = `Usage: aorta-probe metrics [DOC|-] [OUT] [flags]

Write the document DOC (- for standard input) as Prometheus metrics in the
text exposition format, for node_exporter's textfile collector: the
environment's identity (aorta_env_info), whether it is partial, when it was
captured, one fingerprint per drift group diff ranks, the canonical knobs
set. Without DOC, one capture runs first with the capture's flags
(aorta-probe --help). OUT, ending in .prom, is written atomically (or
-o OUT); without it, standard output. A .prom file is never read as DOC:
aorta-probe metrics OUT.prom is a fresh capture written to OUT.prom. The
families and the rules of deploy/prometheus/: docs/fleet.md.

Exit status: 0 when written, 1 when DOC cannot be read or OUT written,
2 for a usage error.
`

// Run is the command (capture.Derived). node_exporter's textfile
// collector reads only *.prom files: OUT ends in .prom, and a .prom file is
// never read as DOC (`metrics OUT.prom` is a fresh capture).
var Run = capture.Derived{Name: "metrics", Usage: usage, OutSuffix: ".prom",
	Reads: "node_exporter's textfile collector reads only *.prom", Derive: triage.Metrics}.Run
