package schema

// BuildSystem is the Buck2 checkout the probe ran in (context.md §19):
// {"kind": "none"} or kind buck2 with its version, root and revision.
type BuildSystem struct {
	Kind   string `json:"kind"` // none | buck2
	*Buck2 `json:",inline"`
}

// Buck2 is the buck2 shape of BuildSystem.
type Buck2 struct {
	Version  string  `json:"buck2_version"` // Source: buck2 --version
	RepoRoot string  `json:"repo_root"`     // Source: buck2 root
	Revision *string `json:"revision"`      // Source: hg id -i, else git rev-parse HEAD
}

// BuckInvocation is the Buck context a --buck-target was resolved in
// (context.md §20). Config values are never stored, only keys.
type BuckInvocation struct {
	Status               string   `json:"status"`
	Target               *string  `json:"target"`
	ContextSource        string   `json:"context_source"`
	ModeFiles            []string `json:"mode_files"`
	ConfigKeys           []string `json:"config_keys"`
	Modifiers            []string `json:"modifiers"`
	OptionOrder          []string `json:"option_order"`
	ContextFingerprint   *string  `json:"context_fingerprint"`
	ConfiguredRootTarget *string  `json:"configured_root_target"`
	Comparison           string   `json:"comparison"`
}

// NotRequestedBuckInvocation is the block without --buck-target.
func NotRequestedBuckInvocation() BuckInvocation {
	return BuckInvocation{Status: "not_requested", ContextSource: "none", Comparison: "not_compared"}
}

// LibraryEntry is one known library among the target's deps (context.md §21.3).
type LibraryEntry struct {
	Name             string  `json:"name"`
	Source           string  `json:"source"` // buck
	Revision         *string `json:"revision"`
	Target           string  `json:"target"`
	ConfiguredTarget string  `json:"configured_target"`
}

// LibraryAlternate is the package-side identity of a Buck-provided library
// (context.md §21.5).
type LibraryAlternate struct {
	Name           string  `json:"name"`
	Source         string  `json:"source"` // package
	Revision       *string `json:"revision"`
	PackageVersion *string `json:"package_version"`
	LibHash        *string `json:"lib_hash"`
}
