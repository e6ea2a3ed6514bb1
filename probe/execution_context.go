package probe

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"aorta-probe/buck"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// execContext is the execution_context row: the block, and the placement
// evidence it records in probe_provenance.
type execContext struct {
	block     schema.ExecutionContext
	placement schema.Placement
}

// collectExecutionContext is execution_context (context.md §5.1): the
// caller's own claim of how the probe was invoked. The CLI rejects unknown
// labels before collecting; a library caller's unknown label is recorded as
// direct with a reason. likely_execution_platform is filled later by the
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

// placementEvidence reads the native markers of buck2.md §4.4 and says
// what they suggest. It is a pure function of the environment.
func placementEvidence(env func(string) *string, cwd string) schema.Placement {
	p := schema.Placement{Signals: []schema.PlacementSignal{}, Evidence: []string{}}
	state := func(v *string) string {
		switch {
		case v == nil:
			return "unset"
		case *v == "":
			return "empty"
		}
		return "set"
	}
	set := func(v *string) bool { return v != nil && *v != "" }
	add := func(name string, v *string, keep bool, detail *string) {
		sig := schema.PlacementSignal{Name: name, State: state(v), Detail: detail}
		if keep && v != nil {
			sig.Value = schema.Str(*v)
		}
		p.Signals = append(p.Signals, sig)
	}
	scratch, uuid, build := env("BUCK_SCRATCH_PATH"), env("BUCK2_DAEMON_UUID"), env("BUCK_BUILD_ID")
	tmpdir, pwd, pathVar, image := env("TMPDIR"), env("PWD"), env("PATH"), env("AORTA_RE_IMAGE")
	add("BUCK_SCRATCH_PATH", scratch, true, nil)
	add("BUCK2_DAEMON_UUID", uuid, true, nil)
	add("BUCK_BUILD_ID", build, true, nil)
	var tmpDetail *string
	// tmpInScratch is the fact behind the "ending in" detail; the evidence
	// tests it, never the rendered detail ("not ending in" contains it).
	tmpInScratch := false
	if set(tmpdir) {
		d := "relative path"
		if filepath.IsAbs(*tmpdir) {
			d = "absolute path"
			if set(scratch) {
				if tail := scratchTail(*scratch); tail != "" && strings.HasSuffix(path.Clean(*tmpdir), "/"+tail) {
					d += " ending in BUCK_SCRATCH_PATH"
					tmpInScratch = true
				} else {
					d += " not ending in BUCK_SCRATCH_PATH"
				}
			}
		}
		tmpDetail = &d
	}
	add("TMPDIR", tmpdir, false, tmpDetail)
	var pwdDetail *string
	if set(pwd) {
		d := "differs from the working directory"
		if path.Clean(*pwd) == path.Clean(cwd) {
			d = "equals the working directory"
		}
		pwdDetail = &d
	}
	add("PWD", pwd, false, pwdDetail)
	var pathDetail *string
	if set(pathVar) {
		d := fmt.Sprintf("%d entries", len(filepath.SplitList(*pathVar)))
		pathDetail = &d
	}
	add("PATH", pathVar, false, pathDetail)
	var imgDetail *string
	if set(image) {
		imgDetail = schema.Str("declared by the launcher (caller-asserted; value not recorded)")
	}
	add("AORTA_RE_IMAGE", image, false, imgDetail)

	local := set(uuid) && set(build)
	noLocal := !set(uuid) && !set(build)
	ev := func(format string, args ...any) { p.Evidence = append(p.Evidence, fmt.Sprintf(format, args...)) }
	switch {
	case set(scratch) && local:
		p.Suggests = "local_action"
		ev("BUCK_SCRATCH_PATH is set, so this looks like a Buck2 build action")
		ev("BUCK2_DAEMON_UUID and BUCK_BUILD_ID are set: buck2's local executor adds these, and buck2 does not send them to remote execution")
		if tmpInScratch {
			ev("TMPDIR is an absolute path ending in the scratch path, as buck2's local executor sets it")
		}
	case set(scratch) && noLocal:
		p.Suggests = "remote_action"
		ev("BUCK_SCRATCH_PATH is set, so this looks like a Buck2 build action")
		ev("BUCK2_DAEMON_UUID and BUCK_BUILD_ID are unset: buck2's local executor would have added them, so the action was likely not run by buck2's local executor (consistent with a remote-execution worker)")
		if !set(pathVar) {
			ev("PATH is %s: buck2 sends no PATH to remote execution, while a local action inherits the daemon's", state(pathVar))
		}
	case !set(scratch) && local:
		p.Suggests = "local_test"
		ev("BUCK2_DAEMON_UUID and BUCK_BUILD_ID are set without BUCK_SCRATCH_PATH: consistent with a test (sh_test) or another process started by a local buck2 daemon")
	case !set(scratch) && noLocal && set(image):
		p.Suggests = "remote_action"
		ev("no native Buck2 marker is present, but AORTA_RE_IMAGE is set: only the launcher's declaration points to a remote worker (a test run on remote execution carries no native marker)")
	case !set(scratch) && noLocal:
		p.Suggests = "not_an_action"
		ev("no Buck2 action marker (BUCK_SCRATCH_PATH, BUCK2_DAEMON_UUID, BUCK_BUILD_ID) is set: consistent with a shell, buck2 run, or a test on remote execution, which carry none")
	default:
		p.Suggests = "inconclusive"
		ev("only one of BUCK2_DAEMON_UUID and BUCK_BUILD_ID is set: the markers disagree")
	}
	if set(image) && p.Suggests == "local_action" {
		ev("AORTA_RE_IMAGE is set although the local executor's markers are present: the launcher's declaration and the native markers disagree")
	}
	ev("these are signs, not proof: a remote worker may inject any variable, and a cache hit means this process did not run for the current build")
	return p
}

// scratchTail is BUCK_SCRATCH_PATH without the "../" prefix the prelude
// genrule adds (buck2.md §5.1), i.e. the project-relative scratch path.
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

// executionPlatform asks buck2 which execution platform the target
// resolves to in the same context (buck2.md §3.1). It appends no reason:
// the field is advisory and null in the Python probe; why it is null goes
// to probe_provenance.placement.
func (s *state) executionPlatform(buck2, target, dir string) platformAnswer {
	ctx := s.opt.Buck.Context
	timeout := s.opt.Buck.timeout()
	argv := buck.ExecutionPlatformArgv(buck2, ctx, target)
	r := s.run(Command{Argv: argv, Dir: dir, Timeout: timeout, MaxOutput: buckMaxOutput})
	const what = "the execution-platform cquery"
	var exit *ExitError
	fail := func(format string, args ...any) platformAnswer {
		return platformAnswer{reason: "not resolved: " + ctx.Redact(fmt.Sprintf(format, args...))}
	}
	switch {
	case r.Err == ErrTimeout:
		return fail("%s timed out after %ds", what, int(timeout/time.Second))
	case r.Err != nil && !errors.As(r.Err, &exit):
		return fail("%s failed to launch (%s)", what, pyfmt.ExcStr(r.Err))
	}
	stdout, stderr, err := decodeBuck(ctx, r)
	switch {
	case err != nil:
		return fail("%s printed output that is not UTF-8 (%v)", what, err)
	case exit != nil:
		msg := pyfmt.FirstRunes(ctx.Redact(pyfmt.Strip(stderr)), 300)
		if msg == "" {
			msg = "(empty)"
		}
		return fail("%s exited %d (stderr: %s)", what, r.ExitCode, msg)
	}
	p, err := buck.ParseExecutionPlatform(stdout, target)
	if err != nil {
		return fail("%v", err)
	}
	src := "buck2 " + strings.Join(buck.RedactArgv(argv[1:]), " ")
	return platformAnswer{value: &p, source: &src}
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
