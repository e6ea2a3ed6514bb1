package triage

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestValueLines: a value is never broken nor cut (issue 31.8: a JSON
// list split at the column, a sha256 broken across lines): it is printed
// whole on the prefix's line, or on the next after a long label; past
// ValueMax it is elided with a count; a control character is escaped.
func TestValueLines(t *testing.T) {
	hash := "filenames-sha256:" + strings.Repeat("0123456789abcdef", 4)
	list := strings.TrimSuffix(strings.Repeat("mnt_ns_differs_from_parent, ", 6), ", ")
	json := `{"path":"/etc/os-release","id":"debian","version_id":"12","pretty_name":"Debian GNU/Linux 12 (bookworm)"}`
	modes := `["SPX","DPX","QPX","CPX"]`
	for _, c := range []struct {
		prefix, v string
		want      []string
	}{
		{"        A: ", "short", []string{"        A: short"}},
		{"        A: ", hash, []string{"        A: " + hash}},
		{"        A: ", json, []string{"        A: " + json}},
		{"        A: ", list, []string{"        A: " + list}},
		{"        A: ", "16.0 GT/s PCIe x16 ×7; 16.0 GT/s PCIe x8 (below max 16.0 GT/s PCIe x16) ×1 (0000:03:00.0)", []string{
			"        A: 16.0 GT/s PCIe x16 ×7; 16.0 GT/s PCIe x8 (below max 16.0 GT/s PCIe x16) ×1 (0000:03:00.0)"}},
		{"    probe_provenance.gpus.devices[].available_compute_partition: ", modes, []string{
			"    probe_provenance.gpus.devices[].available_compute_partition:", "      " + modes}},
		{"        A: ", strings.Repeat("é", 200), []string{"        A: " + strings.Repeat("é", 200)}},
		{"        A: ", "a\x1b]0;t\x07\nb", []string{`        A: a\x1b]0;t\a\nb`}},
	} {
		var l lines
		valueLines(&l, c.prefix, c.v)
		if got := strings.Split(strings.TrimSuffix(l.b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("value %q laid out as\n%s\nwant\n%s", c.v, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
		checkWidth(t, l.b.String())
	}
	var l lines
	long := strings.Repeat("x", ValueMax+100)
	valueLines(&l, "A: ", long)
	want := "A: " + long[:ValueMax-64] + "… (164 more characters; --format json has the whole value)\n"
	if l.b.String() != want {
		t.Errorf("a value past ValueMax: %q…, want %q…", l.b.String()[:40], want[:40])
	}
	if n := utf8.RuneCountInString(l.b.String()); n > ValueMax+80 {
		t.Errorf("elided line is %d characters", n)
	}
}

// TestMdCode: a code span renders exactly its text (CommonMark 6.1): a
// fence longer than any run of backticks inside, padding where the text
// starts or ends with one, \| for a pipe in a table cell.
func TestMdCode(t *testing.T) {
	for _, c := range []struct {
		in   string
		cell bool
		want string
	}{
		{"0|1", true, "`0\\|1`"},
		{"0|1", false, "`0|1`"},
		{"HIP_VISIBLE_DEVICES='0|1`x`'", true, "``HIP_VISIBLE_DEVICES='0\\|1`x`'``"},
		{"`x", false, "`` `x ``"},
		{"a ``` b", false, "````a ``` b````"},
		{" a", false, "`  a `"},
		{"a\x1b[2Jb\u202e", false, "`a\\x1b[2Jb\\u202e`"},
	} {
		if got := mdCode(c.in, c.cell); got != c.want {
			t.Errorf("mdCode(%q, %v) = %s, want %s", c.in, c.cell, got, c.want)
		}
	}
}

// TestMdText: prose renders as written: Markdown's active characters are
// escaped, an underscore inside a word is not.
func TestMdText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"probe_provenance.identity.boot differs", "probe_provenance.identity.boot differs"},
		{"a *b* _c_ `d` [e](f) <g> h|i &amp;", `a \*b\* \_c\_ \` + "`d\\`" + ` \[e\](f) \<g\> h\|i \&amp;`},
		{"- not a list", `\- not a list`},
		{"x\ny", `x\\ny`},
	} {
		if got := mdText(c.in); got != c.want {
			t.Errorf("mdText(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestTextNeverCuts (issue 31.8): a fleet field's line too long for the
// column wraps between its key, its group and the majority's count, never
// inside one ("(majority 4999/500…" before); a verdict whose reason does
// not fit is followed by the reason whole; a long document name is
// printed whole. Nothing is cut: no "…" in either report.
func TestTextNeverCuts(t *testing.T) {
	key := gpusKey + ".devices[].available_compute_partition"
	name := "/var/lib/aorta/fleet/" + strings.Repeat("node-with-a-long-name-", 4) + "0001.json"
	f := hostileFleet("x")
	f.Outliers[0].Name = name
	f.Outliers[0].Differences[1].Key = key
	f.Outliers[0].Differences[1].Value = Value{Present: true, JSON: `["SPX","DPX","QPX","CPX"]`}
	var text bytes.Buffer
	if err := f.Text(&text, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n    " + key + " [hardware]\n      (majority 4999/5000)\n",
		"\n      node:     [\"SPX\",\"DPX\",\"QPX\",\"CPX\"]\n",
		"\n  " + name + ": 2 fields\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("fleet text lacks %q:\n%s", want, text.String())
		}
	}
	r := hostileResult("x")
	r.Because = []string{"probe_provenance.identity.mnt differs: mount namespace 4026531841 on A, 4026532999 on B (another container)"}
	var diff bytes.Buffer
	if err := r.Text(&diff, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(diff.String(), "cannot tell: probe_provenance.identity.mnt differs\n  - probe_provenance.identity.mnt differs: mount namespace 4026531841 on A,\n    4026532999 on B (another container)\n") {
		t.Errorf("diff text starts:\n%s", diff.String())
	}
	for _, out := range []string{text.String(), diff.String()} {
		checkWidth(t, out)
		if strings.Contains(out, "…") {
			t.Errorf("a cut in:\n%s", out)
		}
	}
}
