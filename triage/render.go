package triage

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Width is the terminal width the text format fits.
const Width = 80

// RenderOptions control the human formats.
type RenderOptions struct {
	// Color wraps the verdict in ANSI colour (only when stdout is a TTY and
	// NO_COLOR is unset; the diff command decides).
	Color bool
}

// lines collects output lines and cuts each at Width runes.
type lines struct{ b strings.Builder }

func (l *lines) add(s string) {
	l.b.WriteString(cut(s, Width))
	l.b.WriteByte('\n')
}

// cut shortens s to n runes, ending with "…" when it had to.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrap breaks prose into lines of at most width runes: the first after
// indent, the others after as many spaces.
func wrap(indent, s string, width int) []string {
	var out []string
	cur := indent
	for _, w := range strings.Fields(s) {
		if cur != indent && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			out = append(out, cur)
			indent = strings.Repeat(" ", utf8.RuneCountInString(indent))
			cur = indent
		}
		if cur != indent {
			cur += " "
		}
		cur += w
	}
	if cur != indent {
		out = append(out, cur)
	}
	return out
}

// valueLines lays a value out after prefix: on one line when it fits;
// else prose-like values (words that each fit) wrap at spaces, and
// anything else (hashes, JSON) breaks at the column, so that nothing is
// cut off.
func valueLines(l *lines, prefix, v string) {
	plen := utf8.RuneCountInString(prefix)
	if plen+utf8.RuneCountInString(v) <= Width {
		l.add(prefix + v)
		return
	}
	words := strings.Fields(v)
	if strings.Join(words, " ") == v && len(words) > 1 && !slices.ContainsFunc(words, func(w string) bool {
		return utf8.RuneCountInString(w) > Width-plen
	}) {
		for _, s := range wrap(prefix, v, Width) {
			l.add(s)
		}
		return
	}
	pad := strings.Repeat(" ", plen)
	r := []rune(v)
	for p := prefix; len(r) > 0; p = pad {
		n := min(len(r), Width-plen)
		l.add(p + string(r[:n]))
		r = r[n:]
	}
}

// display is a value for a terminal: control characters escaped.
func display(v Value) string {
	t := v.Text()
	if strings.ContainsFunc(t, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return v.JSON
	}
	if v.Present && t == "" && v.JSON == `""` {
		return `""`
	}
	return t
}

const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

// headline is the verdict line: the verdict, then the first reason when
// it fits, else the reason's subject ("probe_namespace differs").
func (r *Result) headline() string {
	if len(r.Because) == 0 {
		return r.Verdict
	}
	h := r.Verdict + ": " + r.Because[0]
	if utf8.RuneCountInString(h) <= Width {
		return h
	}
	short, _, _ := strings.Cut(r.Because[0], ": ")
	short, _, _ = strings.Cut(short, " (")
	return cut(r.Verdict+": "+short, Width)
}

// Text writes the human report: verdict first, the placement block, then
// the ranked identity differences. Every line fits Width columns.
func (r *Result) Text(w io.Writer, o RenderOptions) error {
	var l lines
	head := cut(r.headline(), Width)
	if o.Color {
		c := ansiYellow
		switch r.Verdict {
		case SamePlace, SamePlace + Advisory:
			c = ansiGreen
		case DifferentPlaces:
			c = ansiRed
		}
		l.b.WriteString(ansiBold + c + head + ansiReset + "\n")
	} else {
		l.add(head)
	}
	if len(r.Because) > 1 || (len(r.Because) == 1 && !strings.HasSuffix(head, r.Because[0])) {
		for _, b := range r.Because {
			for _, s := range wrap("  - ", b, Width) {
				l.add(s)
			}
		}
	}
	for _, e := range r.Evidence {
		for _, s := range wrap("  evidence: ", e, Width) {
			l.add(s)
		}
	}
	l.add("A: " + sideLine(r.A))
	l.add("B: " + sideLine(r.B))
	l.add("")
	l.add("Placement")
	for _, p := range r.Placement {
		label := "  " + p.Key
		switch {
		case p.State == StateSame && p.A == p.B:
			kv(&l, label, "same: "+display(p.A))
		default:
			state := strings.ToUpper(strings.ReplaceAll(p.State, "_", " "))
			if p.State == StateDiffers {
				state += ": " + p.Role
			}
			kv(&l, label, state)
			valueLines(&l, "      A: ", display(p.A))
			valueLines(&l, "      B: ", display(p.B))
			if p.Says != "" {
				for _, s := range wrap("      ", p.Says, Width) {
					l.add(s)
				}
			}
		}
	}
	l.add("")
	if len(r.Differences) == 0 {
		l.add("Identity: no differences")
	} else {
		l.add(fmt.Sprintf("Identity differences (%d), most likely to change numerics first", len(r.Differences)))
		for i, d := range r.Differences {
			if i == 0 || d.Group != r.Differences[i-1].Group {
				l.add("  [" + string(d.Group) + "]")
			}
			l.add(fmt.Sprintf("%4d. %s", i+1, d.Key))
			valueLines(&l, "        A: ", display(d.A))
			valueLines(&l, "        B: ", display(d.B))
			// One "why" per run of fields that share it.
			if i+1 == len(r.Differences) || r.Differences[i+1].Why != d.Why {
				for _, s := range wrap("      why: ", d.Why, Width) {
					l.add(s)
				}
			}
		}
	}
	_, err := io.WriteString(w, l.b.String())
	return err
}

func sideLine(s Side) string {
	p := ""
	if !s.Provenance {
		p = ", no probe_provenance"
	}
	return fmt.Sprintf("%s (schema %s%s)", s.Name, s.Schema, p)
}

// kv writes "label  value" padded to a column, or the value on the next
// line when both do not fit.
func kv(l *lines, label, value string) {
	const col = 40
	pad := col - utf8.RuneCountInString(label)
	if pad < 1 {
		pad = 1
	}
	line := label + strings.Repeat(" ", pad) + value
	if utf8.RuneCountInString(line) <= Width {
		l.add(line)
		return
	}
	l.add(label)
	valueLines(l, "      ", value)
}

// mdCell is a value for a Markdown table cell.
func mdCell(v Value) string {
	if !v.Present {
		return "*absent*"
	}
	s := strings.NewReplacer("|", `\|`, "`", "'", "\n", " ").Replace(display(v))
	return "`" + s + "`"
}

func mdText(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }

// Markdown writes the report for a bug report.
func (r *Result) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**Verdict: %s**\n\n", r.Verdict)
	for _, s := range r.Because {
		fmt.Fprintf(&b, "- %s\n", mdText(s))
	}
	for _, e := range r.Evidence {
		fmt.Fprintf(&b, "- evidence: %s\n", mdText(e))
	}
	if len(r.Because) > 0 || len(r.Evidence) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "- Level: %s (%s)\n- A: `%s`\n- B: `%s`\n\n", r.Level, r.Grade, mdText(sideLine(r.A)), mdText(sideLine(r.B)))
	b.WriteString("### Placement\n\n| field | role | state | A | B | meaning |\n|---|---|---|---|---|---|\n")
	for _, p := range r.Placement {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", p.Key, p.Role, p.State, mdCell(p.A), mdCell(p.B), mdText(p.Says))
	}
	b.WriteString("\n### Identity differences, most likely to change numerics first\n\n")
	if len(r.Differences) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| # | key | group | A | B | why it matters |\n|---|---|---|---|---|---|\n")
		for i, d := range r.Differences {
			fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s | %s |\n", i+1, d.Key, d.Group, mdCell(d.A), mdCell(d.B), mdText(d.Why))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSONFormat names the shape of the --format json result (docs/triage.md).
const JSONFormat = "aorta-probe-diff/1"

type jsonSide struct {
	Name          string `json:"name"`
	SchemaVersion string `json:"schema_version"`
	Provenance    bool   `json:"probe_provenance"`
}

type jsonPlacement struct {
	Key      string          `json:"key"`
	Role     string          `json:"role"`
	State    string          `json:"state"`
	A        json.RawMessage `json:"a"`
	APresent bool            `json:"a_present"`
	B        json.RawMessage `json:"b"`
	BPresent bool            `json:"b_present"`
	Says     string          `json:"says"`
}

type jsonDifference struct {
	Rank     int             `json:"rank"`
	Key      string          `json:"key"`
	Group    Group           `json:"group"`
	A        json.RawMessage `json:"a"`
	APresent bool            `json:"a_present"`
	B        json.RawMessage `json:"b"`
	BPresent bool            `json:"b_present"`
	Why      string          `json:"why"`
}

type jsonResult struct {
	Format      string           `json:"format"`
	Verdict     string           `json:"verdict"`
	Level       string           `json:"level"`
	Grade       string           `json:"grade"`
	ExitStatus  int              `json:"exit_status"`
	Because     []string         `json:"because"`
	Evidence    []string         `json:"evidence"`
	A           jsonSide         `json:"a"`
	B           jsonSide         `json:"b"`
	Placement   []jsonPlacement  `json:"placement"`
	Differences []jsonDifference `json:"differences"`
}

// raw is a Value as a JSON value: absent is null (with *_present false), a
// digest is a string.
func raw(v Value) json.RawMessage {
	switch {
	case !v.Present:
		return json.RawMessage("null")
	case v.Digest || !json.Valid([]byte(v.JSON)):
		// A digest, or NaN/Infinity (valid for Python, not for JSON).
		return json.RawMessage(compact(v.JSON))
	}
	return json.RawMessage(v.JSON)
}

// JSON writes the machine-readable result (shape in docs/triage.md).
func (r *Result) JSON(w io.Writer) error {
	out := jsonResult{
		Format: JSONFormat, Verdict: r.Verdict, Level: r.Level, Grade: r.Grade, ExitStatus: r.ExitCode(),
		Because:     append([]string{}, r.Because...),
		Evidence:    append([]string{}, r.Evidence...),
		A:           jsonSide{r.A.Name, r.A.Schema, r.A.Provenance},
		B:           jsonSide{r.B.Name, r.B.Schema, r.B.Provenance},
		Placement:   []jsonPlacement{},
		Differences: []jsonDifference{},
	}
	for _, p := range r.Placement {
		out.Placement = append(out.Placement, jsonPlacement{p.Key, p.Role, p.State, raw(p.A), p.A.Present, raw(p.B), p.B.Present, p.Says})
	}
	for i, d := range r.Differences {
		out.Differences = append(out.Differences, jsonDifference{i + 1, d.Key, d.Group, raw(d.A), d.A.Present, raw(d.B), d.B.Present, d.Why})
	}
	return writeJSON(w, out)
}

// writeJSON writes v indented, without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// OneLine keeps an error message on one line.
func OneLine(err error) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(err.Error())
}
