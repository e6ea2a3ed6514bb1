// Package metrics is `aorta-probe metrics [DOC|-] [OUT] [flags]`: a
// document as Prometheus metrics for node_exporter's textfile collector
// (triage.Metrics, docs/fleet.md).
package metrics

import (
	"fmt"
	"strings"

	"aorta-probe/cli/capture"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/triage"
)

const usage = `Usage: aorta-probe metrics [DOC|-] [OUT] [flags]

Write the document DOC (- for standard input) as Prometheus metrics in the
text exposition format, for node_exporter's textfile collector: the
environment's identity (aorta_env_info), whether it is partial, when it was
captured, one fingerprint per drift group diff ranks, the canonical knobs
set. Without DOC, one capture runs first with the capture's flags
(aorta-probe --help). OUT, ending in .prom, is written atomically (or
-o OUT); without it, standard output. The families and the rules of
deploy/prometheus/: docs/fleet.md.

Exit status: 0 when written, 1 when DOC cannot be read or OUT written,
2 for a usage error.
`

// Run is the command (capture.Derived).
var Run = capture.Derived{Name: "metrics", Usage: usage, CheckOut: checkOut, Derive: triage.Metrics}.Run

// checkOut: node_exporter's textfile collector reads only *.prom files.
func checkOut(out string) error {
	if !strings.HasSuffix(out, ".prom") {
		return fmt.Errorf("OUT %s must end in .prom (node_exporter's textfile collector reads only *.prom)", pyfmt.Repr(out))
	}
	return nil
}
