package probe

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"aorta-probe/buck"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// execContext is the execution_context row: the block, and the placement
// evidence it records in probe_provenance.
type execContext struct {
	block     schema.ExecutionContext
	placement schema.Placement
}

// collectExecutionContext is execution_context
// (docs/fields-process.md#execution_context-caller-asserted): the caller's
// own claim of how the probe was invoked. The CLI rejects unknown labels
// before collecting; a library caller's unknown label is recorded as direct
// with a reason. likely_execution_platform is filled later by the
// buck_invocation row, which has the repo root and the deps cquery.
//
// Source: --execution-context; the placement evidence from the process
// environment (BUCK_SCRATCH_PATH, BUCK2_DAEMON_UUID, BUCK_BUILD_ID,
// TMPDIR, PWD, PATH, AORTA_RE_IMAGE).
func collectExecutionContext(s *state) execContext {
	label := s.opt.ExecutionContext
	ec := schema.ExecutionContext{ProbeInvocation: validExecutionContext(label)}
	if ec.ProbeInvocation != label {
		s.reason("execution_context.probe_invocation: unknown value %s; recorded as 'direct'", pyfmt.Repr(label))
	}
	p := placementEvidence(s.envPtr, s.opt.Cwd)
	p.LikelyExecutionPlatform = schema.PlatformEvidence{Reason: schema.Str("not captured: the buck_invocation probe did not finish")}
	return execContext{block: ec, placement: p}
}

// placementEvidence reads the native markers of
// docs/buck2.md#4-reading-the-placement-evidence and says what they suggest.
// It is a pure function of the environment.
func placementEvidence(env func(string) *string, cwd string) schema.Placement {
	p := schema.Placement{Signals: []schema.PlacementSignal{}, Evidence: []string{}}
	m := placementMarkers{vars: map[string]*string{}, cwd: cwd}
	for _, row := range placementSignals {
		m.vars[row.name] = env(row.name)
	}
	for _, row := range placementSignals {
		v := m.vars[row.name]
		sig := schema.PlacementSignal{Name: row.name, State: markerState(v)}
		if row.keep && v != nil {
			sig.Value = schema.Str(*v)
		}
		if row.detail != nil && isSet(v) {
			sig.Detail = schema.Str(row.detail(*v, m))
		}
		p.Signals = append(p.Signals, sig)
	}
	p.Suggests, p.Evidence = placementSuggests(m)
	return p
}

// placementMarkers are the variables of placementSignals as read, and the
// working directory.
type placementMarkers struct {
	vars map[string]*string
	cwd  string
}

func (m placementMarkers) set(name string) bool { return isSet(m.vars[name]) }

// tmpInScratch is the fact behind TMPDIR's "ending in" detail; the
// evidence tests it, never the rendered detail ("not ending in" contains
// it).
func (m placementMarkers) tmpInScratch() bool {
	tmpdir, scratch := m.vars["TMPDIR"], m.vars["BUCK_SCRATCH_PATH"]
	if !isSet(tmpdir) || !filepath.IsAbs(*tmpdir) || !isSet(scratch) {
		return false
	}
	tail := scratchTail(*scratch)
	return tail != "" && strings.HasSuffix(path.Clean(*tmpdir), "/"+tail)
}

func markerState(v *string) string {
	switch {
	case v == nil:
		return "unset"
	case *v == "":
		return "empty"
	}
	return "set"
}

func isSet(v *string) bool { return v != nil && *v != "" }

// placementSignals are the rows of probe_provenance.placement.signals, in
// order: the variable, whether its value is recorded, and the detail of a
// set, non-empty value (nil: none).
var placementSignals = []struct {
	name   string
	keep   bool
	detail func(v string, m placementMarkers) string
}{
	{"BUCK_SCRATCH_PATH", true, nil},
	{"BUCK2_DAEMON_UUID", true, nil},
	{"BUCK_BUILD_ID", true, nil},
	{"TMPDIR", false, func(v string, m placementMarkers) string {
		switch {
		case !filepath.IsAbs(v):
			return "relative path"
		case !m.set("BUCK_SCRATCH_PATH"):
			return "absolute path"
		case m.tmpInScratch():
			return "absolute path ending in BUCK_SCRATCH_PATH"
		}
		return "absolute path not ending in BUCK_SCRATCH_PATH"
	}},
	{"PWD", false, func(v string, m placementMarkers) string {
		if path.Clean(v) == path.Clean(m.cwd) {
			return "equals the working directory"
		}
		return "differs from the working directory"
	}},
	{"PATH", false, func(v string, _ placementMarkers) string {
		return fmt.Sprintf("%d entries", len(filepath.SplitList(v)))
	}},
	{"AORTA_RE_IMAGE", false, func(string, placementMarkers) string {
		return "declared by the launcher (caller-asserted; value not recorded)"
	}},
}

// placementSuggests is what the markers suggest, and the evidence for it.
func placementSuggests(m placementMarkers) (string, []string) {
	scratch, image := m.set("BUCK_SCRATCH_PATH"), m.set("AORTA_RE_IMAGE")
	local := m.set("BUCK2_DAEMON_UUID") && m.set("BUCK_BUILD_ID")
	noLocal := !m.set("BUCK2_DAEMON_UUID") && !m.set("BUCK_BUILD_ID")
	const action = "BUCK_SCRATCH_PATH is set, so this looks like a Buck2 build action"
	var suggests string
	var ev []string
	switch {
	case scratch && local:
		suggests = "local_action"
		ev = append(ev, action, "BUCK2_DAEMON_UUID and BUCK_BUILD_ID are set: buck2's local executor adds these, and buck2 does not send them to remote execution")
		if m.tmpInScratch() {
			ev = append(ev, "TMPDIR is an absolute path ending in the scratch path, as buck2's local executor sets it")
		}
	case scratch && noLocal:
		suggests = "remote_action"
		ev = append(ev, action, "BUCK2_DAEMON_UUID and BUCK_BUILD_ID are unset: buck2's local executor would have added them, so the action was likely not run by buck2's local executor (consistent with a remote-execution worker)")
		if !m.set("PATH") {
			ev = append(ev, fmt.Sprintf("PATH is %s: buck2 sends no PATH to remote execution, while a local action inherits the daemon's", markerState(m.vars["PATH"])))
		}
	case !scratch && local:
		suggests = "local_test"
		ev = append(ev, "BUCK2_DAEMON_UUID and BUCK_BUILD_ID are set without BUCK_SCRATCH_PATH: consistent with a test (sh_test) or another process started by a local buck2 daemon")
	case !scratch && noLocal && image:
		suggests = "remote_action"
		ev = append(ev, "no native Buck2 marker is present, but AORTA_RE_IMAGE is set: only the launcher's declaration points to a remote worker (a test run on remote execution carries no native marker)")
	case !scratch && noLocal:
		suggests = "not_an_action"
		ev = append(ev, "no Buck2 action marker (BUCK_SCRATCH_PATH, BUCK2_DAEMON_UUID, BUCK_BUILD_ID) is set: consistent with a shell, buck2 run, or a test on remote execution, which carry none")
	default:
		suggests = "inconclusive"
		ev = append(ev, "only one of BUCK2_DAEMON_UUID and BUCK_BUILD_ID is set: the markers disagree")
	}
	if image && suggests == "local_action" {
		ev = append(ev, "AORTA_RE_IMAGE is set although the local executor's markers are present: the launcher's declaration and the native markers disagree")
	}
	ev = append(ev, "these are signs, not proof: a remote worker may inject any variable, and a cache hit means this process did not run for the current build")
	return suggests, ev
}

// scratchTail is BUCK_SCRATCH_PATH without the "../" prefix the prelude
// genrule adds (docs/buck2.md#2-running-the-probe-as-an-action), i.e. the
// project-relative scratch path.
func scratchTail(s string) string {
	s = path.Clean(s)
	for strings.HasPrefix(s, "../") {
		s = s[3:]
	}
	if s == ".." || s == "." || strings.HasPrefix(s, "/") {
		return ""
	}
	return s
}

// platformAnswer is the advisory execution platform of the target.
type platformAnswer struct {
	value  *string
	source *string
	reason string // when value is nil
}

func (a platformAnswer) evidence() schema.PlatformEvidence {
	e := schema.PlatformEvidence{Value: a.value, Source: a.source}
	if a.value == nil {
		e.Reason = schema.Str(a.reason)
	}
	return e
}

// executionPlatform asks buck2 which execution platform the target resolves
// to in the same context (docs/buck2.md#likely_execution_platform). It
// appends no reason: the field is advisory and null in the Python probe; why
// it is null goes to probe_provenance.placement.
func (s *state) executionPlatform(buck2, target, dir string) platformAnswer {
	ctx := s.opt.Buck.Context
	timeout := s.opt.Buck.timeout()
	argv := buck.ExecutionPlatformArgv(buck2, ctx, target)
	r := s.run(machine.Command{Argv: argv, Dir: dir, Timeout: timeout, MaxOutput: buckMaxOutput})
	const what = "the execution-platform cquery"
	fail := func(format string, args ...any) platformAnswer {
		return platformAnswer{reason: "not resolved: " + ctx.Redact(fmt.Sprintf(format, args...))}
	}
	switch {
	case r.TimedOut():
		return fail("%s timed out after %ds", what, int(timeout/time.Second))
	case r.LaunchErr() != nil:
		return fail("%s failed to launch (%s)", what, pyfmt.ExcStr(r.Err))
	}
	rc, _ := r.Exit()
	stdout, stderr, err := decodeBuck(ctx, r)
	switch {
	case err != nil:
		return fail("%s printed output that is not UTF-8 (%v)", what, err)
	case rc != 0:
		msg := pyfmt.FirstRunes(ctx.Redact(pyfmt.Strip(stderr)), 300)
		if msg == "" {
			msg = "(empty)"
		}
		return fail("%s exited %d (stderr: %s)", what, rc, msg)
	}
	p, err := buck.ParseExecutionPlatform(stdout, target)
	if err != nil {
		return fail("%v", err)
	}
	src := "buck2 " + strings.Join(buck.RedactArgv(argv[1:]), " ")
	return platformAnswer{value: &p, source: &src}
}

// Warning is the claim-vs-reality notice of
// docs/usage.md#the-claim-vs-reality-warning for a finished document, or ""
// when there is none. It goes to stderr only and never changes the exit
// status.
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
