// Package diff is `aorta-probe diff` in its three modes (two documents,
// --fleet, --env-markers; docs/triage.md): package triage judges, this
// package is the command around it.
package diff

import (
	"aorta-probe/internal/cli"
	"aorta-probe/triage"
)

// Run is `aorta-probe diff ARGS`, stopped promptly by a signal
// (cli.Interruptible).
func Run(args []string, p cli.Process) int {
	return cli.Interruptible("diff", p.Signals, p.Stderr, func(*cli.Watch) int {
		return triage.Main(args, triage.NewIO(p.Stdin, p.Stdout, p.Stderr))
	})
}
