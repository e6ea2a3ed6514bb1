package triage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"aorta-probe/internal/visible"
)

// Width is the terminal width the text format fits.
const Width = 80

// RenderOptions control the human formats.
type RenderOptions struct {
	// Color wraps the verdict in ANSI colour (only when stdout is a TTY and
	// NO_COLOR is unset; the diff command decides).
	Color bool
}

// lines collects output lines. Every line passes through visible.Escape:
// a control or bidi character of a document (a sysfs string, a file
// name) is shown as an escape, never obeyed, and cannot start a line of
// its own (docs/triage.md, "Formats").
type lines struct{ b strings.Builder }

func (l *lines) add(s string) {
	l.b.WriteString(visible.Escape(s))
	l.b.WriteByte('\n')
}

// wrap breaks prose into lines of at most width runes, at spaces: the
// first after indent, the others after as many spaces. A word longer
// than a line keeps a line of its own, whole.
func wrap(indent, s string, width int) []string {
	return wrapWords(indent, 0, strings.Fields(visible.Escape(s)), width)
}

// wrapWords lays words out as wrap does, the lines after the first
// indented hang more; a word may hold spaces (a document name), which
// are never broken.
func wrapWords(indent string, hang int, words []string, width int) []string {
	var out []string
	cur := indent
	for _, w := range words {
		if cur != indent && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			out = append(out, cur)
			indent = strings.Repeat(" ", utf8.RuneCountInString(indent)+hang)
			cur, hang = indent, 0
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

// ValueMax bounds how many characters of one value the text format
// prints: a longer value shows its first ValueMax-64 characters and
// "… (N more characters)"; --format json holds it whole.
const ValueMax = 1024

// valueLines writes a value after prefix, whole, on one line: a value is
// never broken across lines (a JSON list or a hash split at the column,
// or a link description wrapped at a space, reads as another value when
// copied) and never cut, except past ValueMax, visibly, with a count.
// After a long label (a fleet group's key) a value that does not fit goes
// on the next line. So a line wider than Width holds one value, whole
// (docs/triage.md, "Formats").
func valueLines(l *lines, prefix, v string) {
	v = elide(visible.Escape(v))
	if plen := utf8.RuneCountInString(prefix); plen > 24 && plen+utf8.RuneCountInString(v) > Width {
		l.add(strings.TrimRight(prefix, " "))
		l.add(strings.Repeat(" ", len(prefix)-len(strings.TrimLeft(prefix, " "))+2) + v)
		return
	}
	l.add(prefix + v)
}

// elide is v, or past ValueMax characters its head and how many more.
func elide(v string) string {
	n := utf8.RuneCountInString(v)
	if n <= ValueMax {
		return v
	}
	keep := ValueMax - 64
	i := 0
	for k := 0; k < keep; k++ {
		_, size := utf8.DecodeRuneInString(v[i:])
		i += size
	}
	return fmt.Sprintf("%s… (%d more characters; --format json has the whole value)", v[:i], n-keep)
}

// display is a value for people: a string unquoted when that shows it
// exactly; quoted as a Go string literal (visible.Quote) when it is
// empty, starts or ends with a space, starts with a quote, or holds a
// character visible escapes, so that nothing of it is invisible or
// obeyed; any other value as compact JSON with visible's escapes (which
// JSON reads the same).
func display(v Value) string {
	t := v.Text()
	if !v.Present || v.Digest || !strings.HasPrefix(v.JSON, `"`) {
		return visible.Escape(t)
	}
	if t == "" || strings.TrimSpace(t) != t || strings.HasPrefix(t, `"`) || !visible.Clean(t) {
		return visible.Quote(t)
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
// it fits, else the reason's subject ("probe_namespace differs"), else
// the verdict alone; the reasons follow in full when the line does not
// hold the first whole (Text).
func (r *Result) headline() string {
	if len(r.Because) == 0 {
		return r.Verdict
	}
	b := visible.Escape(r.Because[0])
	if h := r.Verdict + ": " + b; utf8.RuneCountInString(h) <= Width {
		return h
	}
	short, _, _ := strings.Cut(b, ": ")
	short, _, _ = strings.Cut(short, " (")
	if h := r.Verdict + ": " + short; utf8.RuneCountInString(h) <= Width {
		return h
	}
	return r.Verdict
}

// Text writes the human report: verdict first, the placement block, then
// the ranked identity differences. Every line fits Width columns.
func (r *Result) Text(w io.Writer, o RenderOptions) error {
	var l lines
	head := r.headline()
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
	if len(r.Because) > 1 || (len(r.Because) == 1 && !strings.HasSuffix(head, visible.Escape(r.Because[0]))) {
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

// mdCell is a value for a Markdown table cell: display's text as a code
// span, *absent* when the document lacks the key.
func mdCell(v Value) string {
	if !v.Present {
		return "*absent*"
	}
	return mdCode(display(v), true)
}

// mdCode is s as a Markdown code span that renders exactly s
// (CommonMark 6.1): visible's escapes, a backtick fence one longer than
// the longest run of backticks in s, a space inside each fence when s
// starts or ends with a backtick or a space (the renderer strips one
// from each side). In a table cell a pipe is written \|, which GFM reads
// as a pipe even inside a code span.
func mdCode(s string, cell bool) string {
	s = visible.Escape(s)
	if s == "" {
		return "` `"
	}
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	run, longest := 0, 0
	for _, c := range []byte(s) {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.Trim(s, " ") != "" && (s[0] == '`' || s[0] == ' ' || s[len(s)-1] == '`' || s[len(s)-1] == ' ') {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdText is prose for Markdown, in a table cell or a list item: visible's
// escapes, and a backslash before each character Markdown would act on
// (emphasis, code, links, HTML, entities, the pipe of a table, a list or
// heading marker at the start), so that the text renders as written. An
// underscore inside a word (probe_provenance) acts on nothing and stays.
func mdText(s string) string {
	s = visible.Escape(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte("\\`*[]<>|&~!", c) >= 0,
			c == '_' && !(i > 0 && alnum(s[i-1]) && i+1 < len(s) && alnum(s[i+1])),
			i == 0 && strings.IndexByte("#+-=", c) >= 0:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

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
	fmt.Fprintf(&b, "- Level: %s (%s)\n- A: %s\n- B: %s\n\n", r.Level, r.Grade, mdCode(sideLine(r.A), false), mdCode(sideLine(r.B), false))
	b.WriteString("### Placement\n\n| field | role | state | A | B | meaning |\n|---|---|---|---|---|---|\n")
	for _, p := range r.Placement {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCode(p.Key, true), p.Role, p.State, mdCell(p.A), mdCell(p.B), mdText(p.Says))
	}
	b.WriteString("\n### Identity differences, most likely to change numerics first\n\n")
	if len(r.Differences) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| # | key | group | A | B | why it matters |\n|---|---|---|---|---|---|\n")
		for i, d := range r.Differences {
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s |\n", i+1, mdCode(d.Key, true), d.Group, mdCell(d.A), mdCell(d.B), mdText(d.Why))
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

// writeJSON writes v indented, without HTML escaping, with every
// character that visible would escape (DEL, the C1 controls, bidi and
// other format characters; encoding/json escapes the C0 controls) written
// \uXXXX: the same JSON value, but a result printed to a terminal cannot
// rewrite it.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonVisible(b.Bytes()))
	return err
}

// jsonVisible is JSON text js with each character that visible.Shown
// rejects, but the line feeds of its layout, as a \uXXXX escape (a
// surrogate pair above U+FFFF). Such a character can only be inside a
// string.
func jsonVisible(js []byte) []byte {
	var out []byte
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		switch {
		case r == '\n' || visible.Shown(r) || r == utf8.RuneError && n == 1:
			if out != nil {
				out = append(out, js[i:i+n]...)
			}
		default:
			if out == nil {
				out = append(make([]byte, 0, len(js)+32), js[:i]...)
			}
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		}
		i += n
	}
	if out == nil {
		return js
	}
	return out
}

// OneLine is an error message on one line, shown as visible.Escape
// shows text: a line break in a file name or a tool's output is \n.
func OneLine(err error) string {
	return visible.Escape(err.Error())
}
