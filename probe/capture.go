package probe

import (
	"cmp"
	"path/filepath"
	"slices"
	"time"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/knobs"
	"aorta-probe/internal/machine"
)

// Capture and replay (docs/capture.md) live in internal/archive: a
// Recorder watches the machine.FS and wraps the seams of a collection, a
// Replay answers them from an archive. What they need to know of the
// collectors is one archive.Policy, built here.

// probeReadsEnv are the other variables the probe reads by name, whose
// value the document records or derives from (runtime_context,
// container_detected, docker, rocm roots, the Python search path):
// without them a replay would not equal the live document. The probe
// never scans the environment, so nothing outside these lists, the knobs
// and the placement markers can be recorded (docs/capture.md).
var probeReadsEnv = []string{"AORTA_DOCKER_DIGEST", "AORTA_DOCKER_IMAGE", "AORTA_PROBE_PYTHON", "AORTA_PYTORCH_SRC",
	"AOTRITON_INSTALLED_PREFIX", "CONDA_DEFAULT_ENV", "HOME", "KUBERNETES_SERVICE_HOST", "LD_LIBRARY_PATH",
	"MIOPEN_SYSTEM_DB_PATH", "MIOPEN_USER_DB_PATH", "NCCL_NET_PLUGIN", "PYTHONPATH", "ROCFFT_RTC_CACHE_PATH",
	"ROCFFT_RTC_SYS_CACHE_PATH", "ROCM_HOME", "ROCM_PATH", "SINGULARITY_NAME", "TEMP", "TMP", "VIRTUAL_ENV"}

// captureEnvAllowed reports whether the value of name may be recorded.
func captureEnvAllowed(name string) bool {
	if slices.Contains(probeReadsEnv, name) {
		return true
	}
	for _, row := range placementSignals { // placementEvidence's variables (execution_context.go)
		if row.name == name {
			return true
		}
	}
	return knobs.IsKnob(name)
}

// capturePolicy is what a capture or a replay of a collection with opt
// needs to know of the collectors.
func capturePolicy(opt Options) archive.Policy {
	redact := opt.Buck.Context.Redact
	p := archive.Policy{
		EnvAllowed:     captureEnvAllowed,
		RedactArgv:     func(argv []string) []string { return redactArgvWith(argv, redact) },
		Redact:         redact,
		ScanBudget:     libcScanBudget,
		NamespaceTypes: namespaceTypes,
	}
	if opt.Extended {
		p.Settings = append(p.Settings, [2]string{"extended", "true"})
	}
	if opt.ExecutionContext != "" {
		p.Settings = append(p.Settings, [2]string{"execution-context", opt.ExecutionContext})
	}
	if opt.Buck.Target != "" {
		p.Settings = append(p.Settings, [2]string{"buck-target", opt.Buck.Target})
	}
	if opt.Deadline > 0 {
		p.Settings = append(p.Settings, [2]string{"deadline", opt.Deadline.String()})
	}
	return p
}

// record makes rc record the collection of opt (defaults applied) on
// root: it returns opt with its seams wrapped.
func record(rc *archive.Recorder, opt Options, root *machine.FS) Options {
	if opt.NamespaceID == nil {
		opt.NamespaceID = func(kind string) machine.NamespaceAnswer { return namespaceID(root, kind) }
	}
	if opt.RootID == nil {
		opt.RootID = func() machine.RootAnswer { return rootID(root) }
	}
	opt.Seams = rc.Attach(opt.Seams, root, capturePolicy(opt))
	return opt
}

// replayOptions returns opt set up to replay r: the root, environment,
// working directory, search path, uname and runner are the archive's,
// and so are --extended, --execution-context, --buck-target and the
// deadline when the capture set them.
func replayOptions(r *archive.Replay, opt Options) Options {
	opt.Seams, opt.Replay = r.Seams(capturePolicy(opt), func(int) string { return randomTempChars() }), r
	if r.Setting("extended") == "true" {
		opt.Extended = true
	}
	if v := r.Setting("execution-context"); v != "" {
		opt.ExecutionContext = v
	}
	if v := r.Setting("buck-target"); v != "" {
		opt.Buck.Target = v
	}
	// The captured deadline is the document's (deadline_ms, the reasons,
	// the Python helper's share of it); the replay's own --deadline
	// bounds only this run.
	if d, err := time.ParseDuration(r.Setting("deadline")); err == nil && d > 0 {
		opt.bound = cmp.Or(opt.Deadline, machine.DefaultDeadline)
		opt.Deadline = d
	}
	return opt
}

// machinePath is the host path of p, a path of the machine the probe
// runs on rather than under --root (rdhc's temp file, system_health.go):
// p itself, or under a replay p inside the expanded archive, the machine
// the replayed rdhc "ran" on.
func (c *collector) machinePath(p string) string {
	if c.opt.Replay == nil {
		return p
	}
	return filepath.Join(c.opt.Replay.Dir(), p)
}
