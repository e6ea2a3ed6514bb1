package schema

// Provenance is this probe's one extension block, written after partial_reasons
// (docs/fields-process.md#probe_provenance-this-probes-extension). aorta
// readers ignore unknown keys; --no-provenance drops it and leaves the exact
// 40-key document.
type Provenance struct {
	Implementation string `py:"implementation"` // always "aorta-probe"
	Version        string `py:"version"`        // aorta-probe's version.
	Build          Build  `py:"build"`          // The running binary.
	// StartedAt is the UTC start of collection, microseconds kept.
	StartedAt  string `py:"started_at"`
	DurationUS int64  `py:"duration_us"` // Collection wall time in microseconds.
	DeadlineMS int64  `py:"deadline_ms"` // The --deadline in milliseconds.
	// DeadlineHit is true when at least one probe was abandoned at the
	// deadline; its block then has its not-captured shape.
	DeadlineHit bool `py:"deadline_hit"`
	// Root is the filesystem root probed ("/" in production).
	Root     string          `py:"root"`
	Detail   string          `py:"detail"`   // compact | full
	Probes   []ProbeRecord   `py:"probes"`   // The probe table as it ran, in order.
	Commands []CommandRecord `py:"commands"` // Every external command run, in order.
	// OSRelease is the distribution of the probed filesystem, or null.
	OSRelease *OSRelease `py:"os_release"`
	// Isolation is every isolation signal checked, in order.
	Isolation Isolation `py:"isolation"`
	// Identity is the kernel's placement identity: boot fingerprint and
	// namespace ids.
	Identity Identity `py:"identity"`
	// Placement is the native evidence of where a Buck2 action ran.
	Placement Placement `py:"placement"`
	// ROCmInstalls is every ROCm install visible and which one the
	// loader would use; absent from documents of older aorta-probe
	// versions.
	ROCmInstalls *ROCmInstalls `py:"rocm_installs,omitnil"`
	// GPUs is the GPUs as kfd and amdgpu's sysfs show them: physical
	// devices, partitions, hives, firmware; absent from documents of
	// older aorta-probe versions.
	GPUs *GPUs `py:"gpus,omitnil"`
	// Tuning is the node and GPU settings AMD's Instinct guides name,
	// judged against them (docs/tuning.md); absent from documents of older
	// aorta-probe versions.
	Tuning *Tuning `py:"tuning,omitnil"`
}

// Placement is the evidence, never proof, of where Buck2 placed this process
// (docs/buck2.md#4-reading-the-placement-evidence): the markers buck2's local
// executor adds, the declared action env that reaches a remote worker too,
// and the launcher's $AORTA_RE_IMAGE convention. Values that may carry
// secrets (paths with a user name, image references with credentials) are
// never recorded, only their presence and derived facts.
type Placement struct {
	// Signals are the markers checked, in a fixed order.
	// Source: the probe's environment (BUCK_SCRATCH_PATH,
	// BUCK2_DAEMON_UUID, BUCK_BUILD_ID, TMPDIR, PWD, PATH, AORTA_RE_IMAGE).
	Signals []PlacementSignal `py:"signals"`
	// Suggests is what the markers together point to: local_action
	// (buck2's local executor), remote_action (a build action without
	// the local executor's additions: consistent with an RE worker),
	// local_test (a test or process started by a local buck2 daemon),
	// not_an_action (no Buck2 action marker at all), or inconclusive.
	Suggests string `py:"suggests"`
	// Evidence says, sentence by sentence, why.
	Evidence []string `py:"evidence"`
	// LikelyExecutionPlatform is execution_context.likely_execution_platform
	// with where it came from, or why it is null.
	LikelyExecutionPlatform PlatformEvidence `py:"likely_execution_platform"`
}

// PlacementSignal is one environment marker.
type PlacementSignal struct {
	// Name is the environment variable.
	Name string `py:"name"`
	// State is unset, empty or set.
	State string `py:"state"`
	// Value is recorded only for markers that cannot be secrets
	// (BUCK_SCRATCH_PATH, BUCK_BUILD_ID); null otherwise.
	Value *string `py:"value"`
	// Detail is a derived fact, e.g. whether TMPDIR ends with the scratch
	// path, or null.
	Detail *string `py:"detail"`
}

// PlatformEvidence is the answer behind likely_execution_platform.
type PlatformEvidence struct {
	// Value is the unconfigured label of the resolved execution platform,
	// or null. Source: buck2 cquery <context> %s <target> -a
	// ^buck\.execution_platform$ --json, in build_system.repo_root.
	Value *string `py:"value"`
	// Source is the buck2 command that answered, or null.
	Source *string `py:"source"`
	// Reason says why Value is null, or null when it is not.
	Reason *string `py:"reason"`
}

// OSRelease is the identity of the probed filesystem's distribution.
// Source: /etc/os-release, else /usr/lib/os-release.
type OSRelease struct {
	Path       string  `py:"path"`        // The os-release file read.
	ID         *string `py:"id"`          // ID.
	VersionID  *string `py:"version_id"`  // VERSION_ID.
	PrettyName *string `py:"pretty_name"` // PRETTY_NAME.
}

// Build describes the running binary, from runtime/debug.ReadBuildInfo.
type Build struct {
	GoVersion  string  `py:"go_version"`   // Go toolchain version.
	GOOS       string  `py:"goos"`         // Target OS.
	GOARCH     string  `py:"goarch"`       // Target architecture.
	CGOEnabled *string `py:"cgo_enabled"`  // build setting CGO_ENABLED, when recorded
	VCS        *string `py:"vcs_revision"` // vcs.revision build setting, when recorded.
}

// ProbeRecord is one entry of the probe table as it ran.
type ProbeRecord struct {
	Name string `py:"name"` // The probe (a block name).
	// Outcome is ok (no reason), partial (reasons appended), panic (the
	// probe crashed; its block has the not-captured shape) or deadline (it
	// did not finish in time; same shape).
	Outcome    string `py:"outcome"`
	DurationUS int64  `py:"duration_us"` // Its wall time in microseconds.
	Reasons    int    `py:"reasons"`     // Partial reasons it appended.
}

// CommandRecord is one external command the probe ran.
type CommandRecord struct {
	Argv []string `py:"argv"` // The command line as run, Buck config values redacted.
	Dir  *string  `py:"dir"`  // Working directory, or null for the probe's.
	// ExitStatus is the exit code, -N for a child killed by signal N (as
	// Python reports it), or null when the command did not run to an exit.
	ExitStatus *int    `py:"exit_status"`
	TimedOut   bool    `py:"timed_out"`   // Killed at its timeout.
	Error      *string `py:"error"`       // Why it did not run to an exit, or null.
	DurationUS int64   `py:"duration_us"` // Its wall time in microseconds.
	// StdoutBytes and StderrBytes count what was kept (for a stream
	// consumed as it was read, such as nm's, everything read); Truncated
	// says the cap cut either stream.
	StdoutBytes int  `py:"stdout_bytes"`
	StderrBytes int  `py:"stderr_bytes"` // Stderr bytes kept.
	Truncated   bool `py:"truncated"`    // The cap cut stdout or stderr.
	// SharedBy names the probes this one run answered, one entry per ask
	// in the order of the list, when more than one asked for the same
	// command (probe/run_once.go); absent when one did (and in documents
	// of older aorta-probe versions, which ran such a command again).
	SharedBy *[]string `py:"shared_by,omitnil"`
}

// Isolation is the evidence behind container_detected.
type Isolation struct {
	// Verdict is "isolated" when any deciding signal fired, else
	// "no_signal" (which is not proof of bare metal).
	Verdict string   `py:"verdict"`
	Signals []Signal `py:"signals"` // Every isolation signal checked, in order.
	// Contradictions are pairs of signals that disagree, in words.
	Contradictions []string `py:"contradictions"`
}

// Signal is one isolation check.
type Signal struct {
	Name string `py:"name"` // The check.
	// Source is the file, link or variable read.
	Source string `py:"source"`
	// Observed is what was read, or null when the source was unreadable
	// (Error then says why).
	Observed *string `py:"observed"`
	Error    *string `py:"error"` // Why the source was unreadable, or null.
	Fired    bool    `py:"fired"` // The signal indicates isolation.
	// Anchor is true for the signals of the Python probe's own
	// container_detected test (docs/isolation.md#the-signals).
	Anchor bool `py:"anchor"`
	// Deciding is true for a signal whose firing alone makes
	// container_detected true; a corroborating one (false) can fire on a
	// bare host and only adds weight (docs/isolation.md).
	Deciding bool `py:"deciding"`
}
