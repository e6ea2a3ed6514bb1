package buck

//lint:file-ignore ST1005 user-facing messages are the Python probe's text, byte for byte (docs/design-notes.md, "Static checks")

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
)

// Option types of an ordered --buck-option TYPE=VALUE
// (docs/buck2.md#buck-flag-errors).
const (
	Mode     = "mode"
	Config   = "config"
	Modifier = "modifier"
)

// Option is one effective context input: a mode file (stored without its
// leading "@"), a config override KEY=VALUE, or a modifier.
type Option struct {
	Type  string // Mode, Config or Modifier
	Value string
}

// Validation messages (docs/buck2.md#buck-flag-errors; the CLI wraps them).
var (
	errOptionShape = errors.New("Buck options must use mode=VALUE, config=KEY=VALUE, or modifier=VALUE")
	errOptionValue = errors.New("Buck option values must be non-empty and contain no NUL")
	errOptionMode  = errors.New("Buck mode option must name a file after '@'")
	errOptionCfg   = errors.New("Buck config options must use config=KEY=VALUE")
	errGroupedMode = errors.New("Buck mode file values must name a file after '@'")
	errGroupedCfg  = errors.New("Buck config overrides must use KEY=VALUE with a non-empty key")
	// ErrMixedStyles and ErrDefaultWithInputs are the library-level
	// checks; the CLI rejects both earlier with its own wording.
	ErrMixedStyles       = errors.New("ordered Buck options cannot be combined with grouped mode, config, or modifier inputs")
	ErrDefaultWithInputs = errors.New("default Buck context confirmation is mutually exclusive with mode files, config overrides, and modifiers")
)

// ParseOption parses one ordered --buck-option TYPE=VALUE
// (docs/buck2.md#buck-flag-errors): split at the first "=", then check the
// value by type.
func ParseOption(raw string) (Option, error) {
	typ, value, ok := strings.Cut(raw, "=")
	if !ok || (typ != Mode && typ != Config && typ != Modifier) {
		return Option{}, errOptionShape
	}
	if value == "" || strings.ContainsRune(value, 0) {
		return Option{}, errOptionValue
	}
	value, ok = normalizeValue(typ, value)
	switch {
	case !ok && typ == Mode:
		return Option{}, errOptionMode
	case !ok:
		return Option{}, errOptionCfg
	}
	return Option{Type: typ, Value: value}, nil
}

// Context is the Buck invocation context a target is resolved in: the
// effective inputs in effective order, and whether the caller confirmed the
// default context. The zero value is the unspecified context.
type Context struct {
	Options          []Option
	DefaultConfirmed bool
}

// NewContext builds the context from the two input styles
// (docs/buck2.md#buck-flag-errors): ordered options (already parsed, in
// command-line order) or the grouped lists, which become all mode files, then
// all config overrides, then all modifiers. Grouped values are checked in
// that order.
func NewContext(ordered []Option, modeFiles, configs, modifiers []string, defaultConfirmed bool) (Context, error) {
	grouped := len(modeFiles)+len(configs)+len(modifiers) > 0
	if len(ordered) > 0 && grouped {
		return Context{}, ErrMixedStyles
	}
	if defaultConfirmed && (len(ordered) > 0 || grouped) {
		return Context{}, ErrDefaultWithInputs
	}
	if len(ordered) > 0 {
		return Context{Options: append([]Option(nil), ordered...)}, nil
	}
	groups := []struct {
		label, typ string
		values     []string
	}{{"mode file", Mode, modeFiles}, {"config override", Config, configs}, {"modifier", Modifier, modifiers}}
	for _, g := range groups {
		for _, v := range g.values {
			if v == "" {
				return Context{}, errors.New("Buck " + g.label + " values must be non-empty strings")
			}
		}
	}
	for _, g := range groups {
		for _, v := range g.values {
			if strings.ContainsRune(v, 0) {
				return Context{}, errors.New("Buck " + g.label + " values must not contain NUL bytes")
			}
		}
	}
	c := Context{DefaultConfirmed: defaultConfirmed}
	for _, g := range groups {
		for _, v := range g.values {
			v, ok := normalizeValue(g.typ, v)
			switch {
			case !ok && g.typ == Mode:
				return Context{}, errGroupedMode
			case !ok:
				return Context{}, errGroupedCfg
			}
			c.Options = append(c.Options, Option{Type: g.typ, Value: v})
		}
	}
	return c, nil
}

// HasInputs reports whether the context carries any input at all
// (an explicit option or the default confirmation).
func (c Context) HasInputs() bool { return len(c.Options) > 0 || c.DefaultConfirmed }

// Source is buck_invocation.context_source: default_confirmed, explicit
// or unspecified.
func (c Context) Source() string {
	switch {
	case c.DefaultConfirmed:
		return "default_confirmed"
	case len(c.Options) > 0:
		return "explicit"
	}
	return "unspecified"
}

func (c Context) values(typ string) []string {
	out := []string{}
	for _, o := range c.Options {
		if o.Type == typ {
			out = append(out, o.Value)
		}
	}
	return out
}

// ModeFiles are the effective mode files, without "@".
func (c Context) ModeFiles() []string { return c.values(Mode) }

// ConfigOverrides are the effective KEY=VALUE overrides. Their values must
// never reach the document; see ConfigKeys and Redact.
func (c Context) ConfigOverrides() []string { return c.values(Config) }

// Modifiers are the effective modifiers.
func (c Context) Modifiers() []string { return c.values(Modifier) }

// ConfigKeys is buck_invocation.config_keys: the text before the first
// "=" of each override, raw (not trimmed).
func (c Context) ConfigKeys() []string {
	out := []string{}
	for _, v := range c.ConfigOverrides() {
		k, _, _ := strings.Cut(v, "=")
		out = append(out, k)
	}
	return out
}

// OptionOrder is buck_invocation.option_order: the type of each input.
func (c Context) OptionOrder() []string {
	out := []string{}
	for _, o := range c.Options {
		out = append(out, o.Type)
	}
	return out
}

// Args is the context's buck2 argv (docs/buck2.md#3-the-buck-blocks): "@FILE"
// for a mode file, "-c" KEY=VALUE for an override, "-m" VALUE for a modifier,
// in effective order. Each value is its own argv element.
func (c Context) Args() []string {
	out := []string{}
	for _, o := range c.Options {
		switch o.Type {
		case Mode:
			out = append(out, "@"+o.Value)
		case Config:
			out = append(out, "-c", o.Value)
		case Modifier:
			out = append(out, "-m", o.Value)
		}
	}
	return out
}

// Fingerprint is buck_invocation.context_fingerprint
// (docs/buck2.md#context-fingerprint).
func (c Context) Fingerprint() string { return Fingerprint(c.Args(), c.DefaultConfirmed) }

// Fingerprint hashes the canonical payload {"buck_argv": argv,
// "default_context_confirmed": confirmed}: compact, keys sorted, raw UTF-8,
// as Python's json.dumps(ensure_ascii=False, separators=(",", ":"),
// sort_keys=True) writes it. The argv includes raw config values, so two
// contexts differing only in a value differ here, while the document keeps
// the keys only.
func Fingerprint(argv []string, confirmed bool) string {
	if argv == nil {
		argv = []string{}
	}
	payload := pyjson.Map[any]{}
	payload.Set("buck_argv", argv)
	payload.Set("default_context_confirmed", confirmed)
	sum := sha256.Sum256(pyjson.EncodeCanonical(payload))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Redact replaces every occurrence of each full KEY=VALUE override in text by
// KEY=<redacted>, longest override first (docs/buck2.md#context-fingerprint);
// then every remaining bare occurrence of a VALUE of at least MinBareRedact
// bytes by <redacted> (a divergence,
// docs/buck2.md#7-divergences-from-the-python-probe). Each override is
// matched in every form a transformation on the way into a reason can give it
// (Forms): callers redact before each transformation and after it.
func (c Context) Redact(text string) string { return Redact(text, c.ConfigOverrides()) }

// MinBareRedact is the shortest config value Redact also removes where it
// appears without its KEY= (buck2 echoing a rejected value, `'VALUE' is
// not …`). The Python probe redacts only the KEY=VALUE form and so leaks a
// value echoed alone; shorter values (1, true, debug, a mode name) are not
// credentials, and replacing them everywhere would rewrite unrelated words
// and numbers of the diagnostic.
const MinBareRedact = 8

// Redact is Context.Redact over an explicit list of overrides.
func Redact(text string, overrides []string) string {
	type repl struct{ old, new string }
	var full, bare []repl
	for _, o := range overrides {
		for _, f := range Forms(o) {
			key, _, _ := strings.Cut(f, "=")
			full = append(full, repl{f, key + "=<redacted>"})
		}
		_, value, _ := strings.Cut(o, "=")
		if len(value) >= MinBareRedact && value != "<redacted>" {
			for _, f := range Forms(value) {
				bare = append(bare, repl{f, "<redacted>"})
			}
		}
	}
	for _, rs := range [][]repl{full, bare} {
		sort.SliceStable(rs, func(i, j int) bool { return len(rs[i].old) > len(rs[j].old) })
		for _, r := range rs {
			if r.old != "" && strings.Contains(text, r.old) {
				text = strings.ReplaceAll(text, r.old, r.new)
			}
		}
	}
	return text
}

// Forms are the texts a config value (or a whole KEY=VALUE) can take in
// what buck2 prints and the probe records, first the value as given:
//   - universal newlines (CRLF and a lone CR read as LF), as the probe
//     decodes buck2's output (Python's text=True);
//   - invalid UTF-8 replaced by U+FFFD per maximal invalid subpart, as
//     buck2 (Rust's from_utf8_lossy) and Python's errors="replace" echo
//     an argument that is not UTF-8, and that form after universal
//     newlines;
//   - escaped as buck2 quotes a value in an error (Rust's Debug, JSON) and
//     as Python's repr() quotes it in an exception text, without quotes.
//
// Duplicates are dropped.
func Forms(s string) []string {
	out := []string{s}
	add := func(f string) {
		for _, g := range out {
			if g == f {
				return
			}
		}
		out = append(out, f)
	}
	lossy := pyfmt.DecodeReplace([]byte(s))
	add(pyfmt.UniversalNewlines(s))
	add(lossy)
	add(pyfmt.UniversalNewlines(lossy))
	add(escapeRust(lossy))
	add(escapeJSON(lossy))
	r := pyfmt.Repr(s)
	add(r[1 : len(r)-1])
	return out
}

// escapeRust is Rust's str Debug escaping without the quotes.
func escapeRust(s string) string {
	return escapeQuoted(s, func(b *strings.Builder, r rune) bool {
		if r < 0x20 || r == 0x7f {
			fmt.Fprintf(b, `\u{%x}`, r)
			return true
		}
		return false
	})
}

// escapeJSON is a JSON string's escaping (serde_json's, with no HTML
// escapes) without the quotes.
func escapeJSON(s string) string {
	return escapeQuoted(s, func(b *strings.Builder, r rune) bool {
		switch {
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			return false
		}
		return true
	})
}

// escapeQuoted is the escaping Rust's Debug and JSON share: \t, \r, \n,
// and a backslash before \\ and ". Every other rune goes to control, which
// writes it escaped and reports true, or reports false to have it written
// as is. Invalid UTF-8 becomes U+FFFD, as both do with lossy text.
func escapeQuoted(s string, control func(b *strings.Builder, r rune) bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case !control(&b, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// RedactArgv returns argv with the value of every config element removed:
// the element after "-c" or "--config", and the value of "--config=K=V",
// become KEY=<redacted>. It is what probe_provenance records of a buck2
// command, so config values never reach the document.
func RedactArgv(argv []string) []string {
	out := append([]string(nil), argv...)
	for i := 0; i < len(out); i++ {
		switch a := out[i]; {
		case (a == "-c" || a == "--config") && i+1 < len(out):
			i++
			if k, _, ok := strings.Cut(out[i], "="); ok {
				out[i] = k + "=<redacted>"
			}
		case strings.HasPrefix(a, "--config="):
			if k, _, ok := strings.Cut(strings.TrimPrefix(a, "--config="), "="); ok {
				out[i] = "--config=" + k + "=<redacted>"
			}
		}
	}
	return out
}

// normalizeValue applies the per-type rule shared by both input styles
// (docs/buck2.md#buck-flag-errors): a mode file loses one leading "@" and
// must not be empty then; a config override needs "=" after a non-blank key.
func normalizeValue(typ, v string) (string, bool) {
	switch typ {
	case Mode:
		v = strings.TrimPrefix(v, "@")
		return v, v != ""
	case Config:
		key, _, ok := strings.Cut(v, "=")
		return v, ok && pyfmt.Strip(key) != ""
	}
	return v, true
}
