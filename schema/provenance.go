package schema

// Provenance is this probe's one extension block, written after therock
// (architecture.md §2.5). aorta readers ignore unknown keys; --no-provenance
// drops it and leaves the exact 40-key document.
type Provenance struct {
	Implementation string `json:"implementation"` // always "aorta-probe"
	Version        string `json:"version"`
	Build          Build  `json:"build"`
	// StartedAt is the UTC start of collection, microseconds kept.
	StartedAt  string `json:"started_at"`
	DurationUS int64  `json:"duration_us"`
	DeadlineMS int64  `json:"deadline_ms"`
	// DeadlineHit is true when at least one probe was abandoned at the
	// deadline; its block then has its not-captured shape.
	DeadlineHit bool `json:"deadline_hit"`
	// Root is the filesystem root probed ("/" in production).
	Root     string          `json:"root"`
	Detail   string          `json:"detail"` // compact | full
	Probes   []ProbeRecord   `json:"probes"`
	Commands []CommandRecord `json:"commands"`
	// OSRelease is the distribution of the probed filesystem, or null.
	OSRelease *OSRelease `json:"os_release"`
	// Isolation is every isolation signal checked, in order.
	Isolation Isolation `json:"isolation"`
}

// OSRelease is the identity of the probed filesystem's distribution.
// Source: /etc/os-release, else /usr/lib/os-release.
type OSRelease struct {
	Path       string  `json:"path"`
	ID         *string `json:"id"`
	VersionID  *string `json:"version_id"`
	PrettyName *string `json:"pretty_name"`
}

// Build describes the running binary, from runtime/debug.ReadBuildInfo.
type Build struct {
	GoVersion  string  `json:"go_version"`
	GOOS       string  `json:"goos"`
	GOARCH     string  `json:"goarch"`
	CGOEnabled *string `json:"cgo_enabled"` // build setting CGO_ENABLED, when recorded
	VCS        *string `json:"vcs_revision"`
}

// ProbeRecord is one entry of the probe table as it ran.
type ProbeRecord struct {
	Name string `json:"name"`
	// Outcome is ok (no reason), partial (reasons appended), panic (the
	// probe crashed; its block has the not-captured shape) or deadline (it
	// did not finish in time; same shape).
	Outcome    string `json:"outcome"`
	DurationUS int64  `json:"duration_us"`
	Reasons    int    `json:"reasons"`
}

// CommandRecord is one external command the probe ran.
type CommandRecord struct {
	Argv []string `json:"argv"`
	Dir  *string  `json:"dir"`
	// ExitStatus is the exit code, -N for a child killed by signal N (as
	// Python reports it), or null when the command did not run to an exit.
	ExitStatus *int    `json:"exit_status"`
	TimedOut   bool    `json:"timed_out"`
	Error      *string `json:"error"`
	DurationUS int64   `json:"duration_us"`
	// StdoutBytes and StderrBytes count what was kept; Truncated says the
	// cap cut either stream.
	StdoutBytes int  `json:"stdout_bytes"`
	StderrBytes int  `json:"stderr_bytes"`
	Truncated   bool `json:"truncated"`
}

// Isolation is the evidence behind container_detected.
type Isolation struct {
	// Verdict is "isolated" when any signal fired, else "no_signal" (which
	// is not proof of bare metal).
	Verdict string   `json:"verdict"`
	Signals []Signal `json:"signals"`
	// Contradictions are pairs of signals that disagree, in words.
	Contradictions []string `json:"contradictions"`
}

// Signal is one isolation check.
type Signal struct {
	Name string `json:"name"`
	// Source is the file, link or variable read.
	Source string `json:"source"`
	// Observed is what was read, or null when the source was unreadable
	// (Error then says why).
	Observed *string `json:"observed"`
	Error    *string `json:"error"`
	Fired    bool    `json:"fired"`
	// Anchor is true for the signals of the Python probe's own
	// container_detected test (context.md §4).
	Anchor bool `json:"anchor"`
}
