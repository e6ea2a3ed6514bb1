package capture

//lint:file-ignore ST1005 user-facing messages are the Python probe's text, byte for byte (docs/design-notes.md, "Static checks")

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"aorta-probe/buck"
	"aorta-probe/cli"
	"aorta-probe/internal/pyfmt"
)

// buckFlags are the --buck-* values as given, validated together by
// validateBuck once the whole command line is read (docs/usage.md#flags).
type buckFlags struct {
	target         *string
	options        []string
	modeFiles      []string
	configs        []string
	modifiers      []string
	defaultContext bool
}

// buckOptions are the --buck-* flags.
var buckOptions = []option{
	{names: []string{"--buck-target"}, value: true, set: func(c *config, _, v string) error {
		c.buck.target = &v
		return nil
	}},
	{names: []string{"--buck-option"}, value: true, repeatable: true, set: appendBuck(func(b *buckFlags) *[]string { return &b.options })},
	{names: []string{"--buck-mode-file"}, value: true, repeatable: true, set: appendBuck(func(b *buckFlags) *[]string { return &b.modeFiles })},
	{names: []string{"--buck-config"}, value: true, repeatable: true, set: appendBuck(func(b *buckFlags) *[]string { return &b.configs })},
	{names: []string{"--buck-modifier"}, value: true, repeatable: true, set: appendBuck(func(b *buckFlags) *[]string { return &b.modifiers })},
	{names: []string{"--buck-default-context"}, set: func(c *config, _, _ string) error { c.buck.defaultContext = true; return nil }},
	{names: []string{"--buck-timeout"}, value: true, set: func(c *config, _, v string) error {
		n, ok := pyInt(v)
		switch {
		case !ok:
			return fmt.Errorf("Invalid value for '--buck-timeout': %s is not a valid integer range.", pyfmt.Repr(cli.Clip(v)))
		case n < 1:
			return fmt.Errorf("Invalid value for '--buck-timeout': %d is not in the range x>=1.", n)
		case n > maxBuckTimeout:
			// Beyond what a time.Duration holds: it would wrap around.
			return fmt.Errorf("Invalid value for '--buck-timeout': %s is not in the range 1<=x<=%d.", cli.Clip(pyIntText(v)), maxBuckTimeout)
		}
		c.options.Buck.Timeout = time.Duration(n) * time.Second
		return nil
	}},
}

// appendBuck is a repeatable --buck-* flag: each value is appended, in order.
func appendBuck(list func(*buckFlags) *[]string) func(*config, string, string) error {
	return func(c *config, _, v string) error {
		l := list(&c.buck)
		*l = append(*l, v)
		return nil
	}
}

// maxBuckTimeout is the largest --buck-timeout, in seconds, that a
// time.Duration holds (about 292 years).
const maxBuckTimeout = math.MaxInt64 / int64(time.Second)

// pyIntText is str(int(s)) for an s that pyInt accepts: the value as
// Python prints it, however large.
func pyIntText(s string) string {
	s = strings.TrimSpace(s)
	sign := ""
	if s[0] == '+' || s[0] == '-' {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	digits := strings.TrimLeft(strings.ReplaceAll(s, "_", ""), "0")
	if digits == "" {
		return "0"
	}
	return sign + digits
}

// pyInt parses an integer as Python's int(str) does: surrounding
// whitespace, an optional sign, digits with single underscores between
// them. Values beyond int64 are not valid here (a timeout that large is
// meaningless); they clamp to the maximum.
func pyInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	digits := strings.ReplaceAll(s, "_", "")
	for _, r := range digits {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		n = 1<<63 - 1
	}
	if neg {
		n = -n
	}
	return n, true
}

// The usage errors, in the order they are checked
// (docs/buck2.md#buck-flag-errors).
var (
	errBuckNeedsTarget = errors.New("--buck-option, --buck-mode-file, --buck-config, --buck-modifier, and --buck-default-context require --buck-target")
	errBuckMixed       = errors.New("--buck-option preserves cross-option ordering and cannot be combined with --buck-mode-file, --buck-config, or --buck-modifier")
	errBuckDefault     = errors.New("--buck-default-context is mutually exclusive with --buck-option, --buck-mode-file, --buck-config, and --buck-modifier")
)

// validateBuck checks the Buck flags together, once all are parsed
// (docs/buck2.md#buck-flag-errors), and stores the validated context in the
// options.
func validateBuck(c *config) error {
	b := c.buck
	grouped := len(b.modeFiles)+len(b.configs)+len(b.modifiers) > 0
	explicit := len(b.options) > 0 || grouped
	hasTarget := b.target != nil && *b.target != ""
	switch {
	case (explicit || b.defaultContext) && !hasTarget:
		return errBuckNeedsTarget
	case len(b.options) > 0 && grouped:
		return errBuckMixed
	case b.defaultContext && explicit:
		return errBuckDefault
	}
	bad := func(err error) error {
		return fmt.Errorf("Invalid value for --buck-option/--buck-mode-file/--buck-config/--buck-modifier/--buck-default-context: %v", err)
	}
	var ordered []buck.Option
	for _, raw := range b.options {
		o, err := buck.ParseOption(raw)
		if err != nil {
			return bad(err)
		}
		ordered = append(ordered, o)
	}
	if !hasTarget {
		return nil
	}
	ctx, err := buck.NewContext(ordered, b.modeFiles, b.configs, b.modifiers, b.defaultContext)
	if err != nil {
		return bad(err)
	}
	c.options.Buck.Target = *b.target
	c.options.Buck.Context = ctx
	return nil
}
