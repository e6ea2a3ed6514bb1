package schema

// BuildSystem is the Buck2 checkout the probe ran in
// (docs/buck2.md#3-the-buck-blocks): {"kind": "none"} or kind buck2 with its
// version, root and revision.
type BuildSystem struct {
	Kind   string `py:"kind"` // none | buck2
	*Buck2 `py:",inline"`
}

// Buck2 is the buck2 shape of BuildSystem.
type Buck2 struct {
	Version  string  `py:"buck2_version"` // Source: buck2 --version
	RepoRoot string  `py:"repo_root"`     // Source: buck2 root
	Revision *string `py:"revision"`      // Source: hg id -i, else git rev-parse HEAD
}

// BuckInvocation is the Buck context a --buck-target was resolved in
// (docs/buck2.md#3-the-buck-blocks). Config values are never stored, only
// keys.
type BuckInvocation struct {
	// not_requested without --buck-target; else whether the cquery succeeded.
	Status string  `py:"status"`
	Target *string `py:"target"` // The --buck-target verbatim.
	// default_confirmed (--buck-default-context), explicit
	// (mode/config/modifier inputs) or unspecified.
	ContextSource string `py:"context_source"`
	// Effective mode files, without a leading @.
	ModeFiles []string `py:"mode_files"`
	// The key of each config override; values are never written.
	ConfigKeys []string `py:"config_keys"`
	Modifiers  []string `py:"modifiers"` // Effective modifiers in order.
	// mode, config or modifier per input, in effective order.
	OptionOrder []string `py:"option_order"`
	// sha256:<hex> of the canonical context inputs.
	ContextFingerprint *string `py:"context_fingerprint"`
	// The cquery label of the requested target, or null.
	ConfiguredRootTarget *string `py:"configured_root_target"`
	Comparison           string  `py:"comparison"` // Always not_compared.
}

// NotRequestedBuckInvocation is the block without --buck-target.
func NotRequestedBuckInvocation() BuckInvocation {
	return BuckInvocation{Status: "not_requested", ContextSource: "none", Comparison: "not_compared"}
}

// LibraryEntry is one known library among the target's deps
// (docs/buck2.md#3-the-buck-blocks).
type LibraryEntry struct {
	Name             string  `py:"name"`              // hipblaslt, pytorch, rccl, ainic or rocm.
	Source           string  `py:"source"`            // buck
	Revision         *string `py:"revision"`          // build_system.revision.
	Target           string  `py:"target"`            // The label without its configuration suffix.
	ConfiguredTarget string  `py:"configured_target"` // The raw cquery label.
}

// LibraryAlternate is the package-side identity of a Buck-provided library
// (docs/buck2.md#3-the-buck-blocks).
type LibraryAlternate struct {
	Name           string  `py:"name"`            // The library.
	Source         string  `py:"source"`          // package
	Revision       *string `py:"revision"`        // Its block's rocm_release_tweak, else version.
	PackageVersion *string `py:"package_version"` // Its block's package_version, else version.
	LibHash        *string `py:"lib_hash"`        // Its block's lib_hash.
}
