package probe

import (
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// collectExecutionContext is execution_context (context.md §5.1): the
// caller's own claim of how the probe was invoked. The CLI rejects unknown
// labels before collecting; a library caller's unknown label is recorded as
// direct with a reason.
func collectExecutionContext(s *state) schema.ExecutionContext {
	label := s.opt.ExecutionContext
	ec := schema.ExecutionContext{ProbeInvocation: validExecutionContext(label)}
	if ec.ProbeInvocation != label {
		s.reason("execution_context.probe_invocation: unknown value %s; recorded as 'direct'", pyfmt.Repr(label))
	}
	return ec
}

// Warning is the claim-vs-reality notice of context.md §5.2 for a finished
// document, or "" when there is none. It goes to stderr only and never
// changes the exit status.
func Warning(snap *schema.Snapshot, env func(string) (string, bool)) string {
	inv := snap.ExecutionContext.ProbeInvocation
	if inv == "direct" || snap.ContainerDetected {
		return ""
	}
	for _, name := range []string{"AORTA_RE_IMAGE", "AORTA_DOCKER_IMAGE"} {
		if v, _ := env(name); v != "" {
			return ""
		}
	}
	if inv == "buck2_run" {
		return "NOTICE: --execution-context buck2_run ran without a detected isolation boundary (container_detected=false). This is consistent with a local `buck2 run`; treat this file as the Buck client-host snapshot, not proof of a remote-worker environment."
	}
	return "WARNING: --execution-context buck2_action claims an in-action capture, but no isolation signal was detected (container_detected=false) and no launcher image was identified. You may be probing the client host rather than the workload action."
}
