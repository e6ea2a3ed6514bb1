// Package triage answers "did I probe the place the workload ran?" from
// env.json documents the probe already wrote: `aorta-probe diff A B` gives a
// verdict, the placement evidence and the identity differences ranked by how
// likely they change numerics; `aorta-probe diff --fleet` finds the nodes
// that differ from the majority; `aorta-probe env-names` and
// `diff --env-markers` run the Buck2 environment-marker experiment. From
// one document it also derives what Prometheus and Kubernetes read
// (docs/fleet.md): the metrics (Metrics), the node labels (Labels) and the
// drift group hashes both use (Fingerprints).
//
// Everything here is a pure function over decoded documents except the
// file readers; the commands around it (arguments, --format, exit status)
// are cli/diff, cli/envnames, cli/metrics and cli/labels. See
// docs/triage.md.
package triage
