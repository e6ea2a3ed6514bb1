package probe

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
	"unicode/utf8"

	"aorta-probe/buck"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// buckResult is what the buck_invocation row fills: buck_invocation,
// library_introspection, and the advisory execution platform of the target
// (execution_context.likely_execution_platform, with the reason when null).
type buckResult struct {
	inv      schema.BuckInvocation
	entries  []schema.LibraryEntry
	platform platformAnswer
}

// collectBuckInvocation is buck_invocation and library_introspection
// (docs/buck2.md#3-the-buck-blocks).
//
// Source: buck2 cquery <context argv> deps(%s) <target> --json, run in
// build_system.repo_root (the current directory when kind is none).
// buckMaxOutput caps the stdout of the buck2 cquery calls: a deps() of a
// large target lists thousands of labels (hundreds of KiB).
const buckMaxOutput = 4 << 20

func collectBuckInvocation(s *state) buckResult {
	opt := s.opt.Buck
	res := buckResult{inv: schema.NotRequestedBuckInvocation(), entries: []schema.LibraryEntry{}}
	if opt.Target == "" {
		if opt.Context.HasInputs() {
			s.reason("buck_invocation: context options were supplied without a Buck target and were ignored")
		}
		res.platform = platformAnswer{reason: "not requested: no --buck-target was given, so no target's execution platform was resolved"}
		return res
	}
	target := opt.Target
	inv := requestedBuckInvocation(opt)
	if inv.ContextSource == "unspecified" {
		s.reason("buck_invocation: --buck-target was supplied without explicit Buck context options or --buck-default-context; the default Buck invocation context was not confirmed")
	}
	bs, ok := await(s, buildSystemBlock)
	if !ok {
		bs = schema.BuildSystem{Kind: "none"}
	}
	if bs.Kind != "buck2" {
		s.reason("library_introspection: --buck-target %s supplied but build_system.kind=%s; running anyway", target, pyfmt.Repr(bs.Kind))
	}
	dir := s.opt.Cwd
	var revision *string
	if bs.Kind == "buck2" && bs.Buck2 != nil {
		dir, revision = bs.RepoRoot, bs.Revision
	}
	q := s.cqueryDeps(target, dir)
	if q.ok {
		for _, m := range buck.MatchLibraries(q.labels) {
			res.entries = append(res.entries, schema.LibraryEntry{
				Name: m.Name, Source: "buck", Revision: revision, Target: m.Target, ConfiguredTarget: m.Configured,
			})
		}
		if l, found := buck.ConfiguredRootTarget(q.labels, target); found {
			inv.ConfiguredRootTarget = schema.Str(l)
		}
		inv.Status = "success"
		res.platform = s.executionPlatform(q.buck2, target, dir)
	} else {
		res.platform = platformAnswer{reason: "not resolved: " + q.why}
	}
	if bs.Kind != "buck2" {
		inv.Status = "buck_not_detected"
	}
	res.inv = inv
	return res
}

// requestedBuckInvocation is the buck_invocation block before (or without) a
// successful cquery: the not-requested default without --buck-target, else
// the full block of the requested context with status "failure" and no
// configured_root_target. It is also the block's not-captured shape, as in
// the Python disaster snapshot
// (docs/fields-process.md#the-not-captured-document).
func requestedBuckInvocation(opt BuckOptions) schema.BuckInvocation {
	if opt.Target == "" {
		return schema.NotRequestedBuckInvocation()
	}
	ctx := opt.Context
	return schema.BuckInvocation{
		Status:             "failure",
		Target:             schema.Str(opt.Target),
		ContextSource:      ctx.Source(),
		ModeFiles:          ctx.ModeFiles(),
		ConfigKeys:         ctx.ConfigKeys(),
		Modifiers:          ctx.Modifiers(),
		OptionOrder:        ctx.OptionOrder(),
		ContextFingerprint: schema.Str(ctx.Fingerprint()),
		Comparison:         "not_compared",
	}
}

// depsQuery is the outcome of the deps cquery.
type depsQuery struct {
	ok     bool
	buck2  string
	labels []string
	why    string // when !ok: in words, for the execution-platform reason
}

// cqueryDeps runs the deps cquery and appends its reasons
// (docs/buck2.md#3-the-buck-blocks; output that is not UTF-8 is a reason
// too).
func (s *state) cqueryDeps(target, dir string) depsQuery {
	ctx := s.opt.Buck.Context
	timeout := s.opt.Buck.timeout()
	what := fmt.Sprintf("library_introspection: buck2 cquery deps(%s)", target)
	buck2, ok := s.which("buck2")
	if !ok {
		s.reason("library_introspection: buck2 not on PATH; --buck-target %s ignored", target)
		return depsQuery{why: "buck2 is not on the probe's PATH"}
	}
	r := s.run(machine.Command{Argv: buck.DepsArgv(buck2, ctx, target), Dir: dir, Timeout: timeout, MaxOutput: buckMaxOutput})
	switch {
	case r.TimedOut():
		s.reason("%s timed out after %ds (raise --buck-timeout if needed)", what, int(timeout/time.Second))
		return depsQuery{why: "the deps cquery timed out"}
	case r.LaunchErr() != nil:
		s.reason("%s failed to launch (%s)", what, ctx.Redact(pyfmt.ExcStr(r.Err)))
		return depsQuery{why: "buck2 failed to launch"}
	}
	stdout, stderr, err := decodeBuck(ctx, r)
	if err != nil {
		s.reason("library_introspection: buck introspection raised (UnicodeDecodeError: %s)", ctx.Redact(err.Error()))
		return depsQuery{why: "buck2 printed output that is not UTF-8"}
	}
	if rc, _ := r.Exit(); rc != 0 {
		msg := pyfmt.FirstRunes(ctx.Redact(pyfmt.Strip(stderr)), 300)
		if msg == "" {
			msg = "(empty)"
		}
		s.reason("%s exited %d (stderr: %s)", what, rc, msg)
		return depsQuery{why: fmt.Sprintf("the deps cquery exited %d", rc)}
	}
	labels, err := buck.ParseLabels(stdout)
	var shape *buck.ShapeError
	switch {
	case errors.As(err, &shape):
		s.reason("%s returned unexpected JSON shape (%s)", what, shape.PyType)
		return depsQuery{why: "the deps cquery printed JSON of unexpected shape"}
	case err != nil:
		s.reason("%s returned non-JSON output (%s)", what, ctx.Redact(err.Error()))
		return depsQuery{why: "the deps cquery printed non-JSON output"}
	}
	return depsQuery{ok: true, buck2: buck2, labels: labels}
}

// libraryAlternates is library_introspection_alternates
// (docs/buck2.md#3-the-buck-blocks): the package-side identity of each
// Buck-provided hipblaslt or rccl (rocblas and miopen have no label patterns,
// so no entry can name them). It reads the same-named blocks as the document
// holds them, so a block that was not captured gives its not-captured
// (all-null) identity.
func libraryAlternates(entries []schema.LibraryEntry, hip schema.GemmLibrary, rccl schema.RCCL) []schema.LibraryAlternate {
	out := []schema.LibraryAlternate{}
	or := func(a, b *string) *string {
		if a != nil && *a != "" {
			return a
		}
		return b
	}
	for _, e := range entries {
		switch e.Name {
		case "hipblaslt":
			// The block has no "version" key: the fallbacks are null.
			out = append(out, schema.LibraryAlternate{Name: e.Name, Source: "package",
				Revision: or(hip.RocmReleaseTweak, nil), PackageVersion: or(hip.PackageVersion, nil), LibHash: hip.LibHash})
		case "rccl":
			// The block has no rocm_release_tweak or package_version.
			out = append(out, schema.LibraryAlternate{Name: e.Name, Source: "package",
				Revision: rccl.Version, PackageVersion: rccl.Version, LibHash: rccl.LibHash})
		}
	}
	return out
}

// decodeBuck is decodeText for a buck2 command run with the context's config
// values, which buck2 may echo. Every transformation between buck2's bytes
// and a recorded reason can hide a value from a redaction done after it (line
// ends normalised, a stripped edge, a decode error quoting a byte of the
// value), so stderr is redacted as raw bytes before decoding and again after
// (the stripped text is redacted once more), each time in every form of each
// value (buck.Forms). Stdout is parsed, not quoted; it is redacted first only
// when it is not UTF-8, so that the decode error cannot quote a byte of a
// value (docs/buck2.md#7-divergences-from-the-python-probe).
func decodeBuck(ctx buck.Context, r machine.Result) (stdout, stderr string, err error) {
	r.Stderr = []byte(ctx.Redact(string(r.Stderr)))
	if !utf8.Valid(r.Stdout) {
		r.Stdout = []byte(ctx.Redact(string(r.Stdout)))
	}
	stdout, stderr, err = decodeText(r)
	return stdout, ctx.Redact(stderr), err
}

// redactArgv is the argv probe_provenance records: config values of a buck2
// command ("-c KEY=VALUE") become KEY=<redacted>, and any other occurrence of
// a configured KEY=VALUE is redacted too (docs/buck2.md#context-fingerprint).
func (s *state) redactArgv(argv []string) []string { return redactArgvWith(argv, s.redact) }

// redactArgvWith is redactArgv with an explicit redaction of config values
// (nil: only the buck2 -c elements); a capture records argv so too.
func redactArgvWith(argv []string, redact func(string) string) []string {
	out := append([]string(nil), argv...)
	if len(out) > 0 && filepath.Base(out[0]) == "buck2" {
		out = buck.RedactArgv(out)
	}
	if redact != nil {
		for i, a := range out {
			out[i] = redact(a)
		}
	}
	return out
}
