package buck

import (
	"fmt"
	"regexp"
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
)

// DepsQuery is the literal cquery of library_introspection
// (docs/buck2.md#3-the-buck-blocks). The target is bound by buck2's
// multi-query "%s" syntax as a separate argv element, so query syntax inside
// a target is never interpreted.
const DepsQuery = "deps(%s)"

// ExecutionPlatformAttr is the -a regex that selects the resolved execution
// platform (-a searches anywhere in the attribute name, hence the anchors;
// docs/buck2.md#likely_execution_platform).
const ExecutionPlatformAttr = `^buck\.execution_platform$`

// DepsArgv is the library-introspection cquery
// (docs/buck2.md#3-the-buck-blocks): buck2 cquery <context argv> deps(%s)
// <target> --json.
func DepsArgv(buck2 string, c Context, target string) []string {
	argv := append([]string{buck2, "cquery"}, c.Args()...)
	return append(argv, DepsQuery, target, "--json")
}

// ExecutionPlatformArgv asks buck2 for the resolved execution platform of
// target in the same context (docs/buck2.md#likely_execution_platform): buck2
// cquery <context argv> %s <target> -a ^buck\.execution_platform$ --json.
// With an attribute the output is one object keyed by configured label.
func ExecutionPlatformArgv(buck2 string, c Context, target string) []string {
	argv := append([]string{buck2, "cquery"}, c.Args()...)
	return append(argv, "%s", target, "-a", ExecutionPlatformAttr, "--json")
}

// ShapeError is a cquery payload that is valid JSON but neither an array
// nor an object; PyType is the Python type name the reason quotes.
type ShapeError struct{ PyType string }

func (e *ShapeError) Error() string { return "unexpected JSON shape (" + e.PyType + ")" }

// ParseLabels reads the stdout of the deps cquery
// (docs/buck2.md#3-the-buck-blocks): an array of labels, or the
// legacy/multi-query object whose array values are concatenated in object
// order. Empty output is no labels. Elements that are not strings become
// Python str() text. Errors are a
// *pyjson.SyntaxError (Python's JSON error text) or a *ShapeError.
func ParseLabels(stdout string) ([]string, error) {
	if pyfmt.Strip(stdout) == "" {
		return []string{}, nil
	}
	v, err := pyjson.Decode(stdout)
	if err != nil {
		return nil, err
	}
	labels := []string{}
	switch t := v.(type) {
	case []any:
		for _, x := range t {
			labels = append(labels, pyjson.Str(x))
		}
	case pyjson.Map[any]:
		for _, e := range t {
			if xs, ok := e.Value.([]any); ok {
				for _, x := range xs {
					labels = append(labels, pyjson.Str(x))
				}
			}
		}
	default:
		return nil, &ShapeError{PyType: pyjson.TypeName(v)}
	}
	return labels, nil
}

// StripSuffix removes a trailing configuration " (cfg)" from a label and
// trims the rest, as the Python probe does: Python's
// re.sub(r"\s+\([^)]*\)\s*$", "", label).strip(). Only the last group goes;
// "//x:y(cfg)" without the space and nested parentheses stay.
func StripSuffix(label string) string {
	t := strings.TrimRightFunc(label, pyfmt.IsSpace)
	if !strings.HasSuffix(t, ")") {
		return pyfmt.Strip(label)
	}
	p := len(t) - 1
	prev := strings.LastIndexByte(t[:p], ')')
	// The leftmost "(" after the previous ")" that has whitespace right
	// before it starts the match, together with that whitespace run.
	for q := prev + 1; q < p; q++ {
		if t[q] != '(' {
			continue
		}
		if j := lastNonSpaceEnd(t[:q]); j < q {
			return pyfmt.Strip(t[:j])
		}
	}
	return pyfmt.Strip(label)
}

// lastNonSpaceEnd is the byte offset just after the last non-space rune of s.
func lastNonSpaceEnd(s string) int {
	return len(strings.TrimRightFunc(s, pyfmt.IsSpace))
}

// knownLibraries is KNOWN_LIBRARY_PATTERNS (docs/buck2.md#3-the-buck-blocks),
// in test order; each pattern is searched anywhere in the bare label.
var knownLibraries = []struct {
	name     string
	patterns []func() *regexp.Regexp
}{
	{"hipblaslt", []func() *regexp.Regexp{lazyre.New(`:hipblaslt(?:[_-]lib)?$`), lazyre.New(`^hipblaslt-`)}},
	{"pytorch", []func() *regexp.Regexp{lazyre.New(`:(?:torch|pytorch)$`), lazyre.New(`:torch_(?:cuda|hip|rocm)$`)}},
	{"rccl", []func() *regexp.Regexp{lazyre.New(`:rccl(?:[_-]lib)?$`)}},
	{"ainic", []func() *regexp.Regexp{lazyre.New(`:rccl[_-]anp(?:[_-]lib)?$`), lazyre.New(`:rccl[_-]net(?:[_-]lib)?$`)}},
	{"rocm", []func() *regexp.Regexp{lazyre.New(`:(?:hip_runtime|rocm_runtime)$`)}},
}

// KnownLibrary names the library a bare label is, or ""
// (docs/buck2.md#3-the-buck-blocks). Python's "$" also matches before one
// final "\n"; a bare label is stripped, so it never ends with one.
func KnownLibrary(bare string) string {
	for _, lib := range knownLibraries {
		for _, re := range lib.patterns {
			if re().MatchString(bare) {
				return lib.name
			}
		}
	}
	return ""
}

// LibraryMatch is one known library among the labels.
type LibraryMatch struct {
	Name       string
	Target     string // bare label
	Configured string // the label as buck2 printed it
}

// MatchLibraries keeps the first label of each known library, in label
// order (docs/buck2.md#3-the-buck-blocks).
func MatchLibraries(labels []string) []LibraryMatch {
	var out []LibraryMatch
	seen := map[string]bool{}
	for _, l := range labels {
		bare := StripSuffix(l)
		name := KnownLibrary(bare)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, LibraryMatch{Name: name, Target: bare, Configured: l})
	}
	return out
}

// ConfiguredRootTarget is the first label whose bare form is the requested
// target, or ends with it when the target starts with "//"
// (docs/buck2.md#3-the-buck-blocks), in one pass.
func ConfiguredRootTarget(labels []string, target string) (string, bool) {
	want := StripSuffix(target)
	for _, l := range labels {
		bare := StripSuffix(l)
		if bare == want || (strings.HasPrefix(want, "//") && strings.HasSuffix(bare, want)) {
			return l, true
		}
	}
	return "", false
}

// Label is a configured target label as buck2 prints it: "cell//pkg:name
// (cfg)", plus " (exec-cfg)" for toolchain targets.
type Label struct {
	Target     string
	Config     string // platform#16hex or a builtin such as <unspecified>
	ExecConfig string // "" unless a toolchain target
}

// pyWhite is the whitespace of Python's str.strip and of \s in a str
// pattern (pyfmt.IsSpace), as the body of a character class: Go's \s lacks
// \v, U+001C–U+001F, U+0085 and the Unicode spaces, and a label whose
// target is one of them must not parse where StripSuffix strips it away.
const pyWhite = `\t\n\v\f\r \x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

var configuredLabel = lazyre.New(`^([^` + pyWhite + `]+) \((<[a-z_]+>|[^` + pyWhite + `()#]+#[0-9a-f]{16})\)(?: \((<[a-z_]+>|[^` + pyWhite + `()#]+#[0-9a-f]{16})\))?$`)

// ParseLabel parses a configured label; ok is false for anything else.
func ParseLabel(s string) (Label, bool) {
	m := configuredLabel().FindStringSubmatch(s)
	if m == nil {
		return Label{}, false
	}
	return Label{Target: m[1], Config: m[2], ExecConfig: m[3]}, true
}

// ParseExecutionPlatform reads the output of ExecutionPlatformArgv: an
// object keyed by configured label whose values hold
// "buck.execution_platform". It returns the unconfigured label of the
// platform resolved for target, or buck2's "<legacy_global_exec_platform>"
// (no [build] execution_platforms set: buck2's local-only legacy
// platform). The error says in words why there is none.
func ParseExecutionPlatform(stdout, target string) (string, error) {
	if pyfmt.Strip(stdout) == "" {
		return "", fmt.Errorf("buck2 printed nothing")
	}
	v, err := pyjson.Decode(stdout)
	if err != nil {
		return "", fmt.Errorf("buck2 printed non-JSON output (%v)", err)
	}
	obj, ok := v.(pyjson.Map[any])
	if !ok {
		return "", fmt.Errorf("buck2 printed JSON of unexpected shape (%s)", pyjson.TypeName(v))
	}
	key, found := ConfiguredRootTarget(obj.Keys(), target)
	if !found {
		if len(obj) != 1 {
			return "", fmt.Errorf("none of the %d configured labels buck2 printed is %s", len(obj), target)
		}
		key = obj[0].Key
	}
	attrs, _ := obj.Get(key)
	m, ok := attrs.(pyjson.Map[any])
	if !ok {
		return "", fmt.Errorf("the entry of %s is not an attribute object", key)
	}
	p, ok := m.Get("buck.execution_platform")
	if !ok {
		return "", fmt.Errorf("the entry of %s has no buck.execution_platform", key)
	}
	s, ok := p.(string)
	switch {
	case !ok:
		return "", fmt.Errorf("buck.execution_platform of %s is not a string (%s)", key, pyjson.TypeName(p))
	case s == "<NONE>":
		return "", fmt.Errorf("buck2 resolved no execution platform for %s (<NONE>: resolution failed)", key)
	case s == "":
		return "", fmt.Errorf("buck.execution_platform of %s is empty", key)
	}
	return s, nil
}
