package triage

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// MarkerValues is the allow-list of variables whose VALUES env-names
// records: the Buck2 placement markers that cannot carry a secret (a
// scratch path relative to the project, a build UUID), the same two the
// probe_provenance.placement block records. Every other variable appears
// by name only (docs/triage.md, "Environment markers").
var MarkerValues = []string{"BUCK_BUILD_ID", "BUCK_SCRATCH_PATH"}

// EnvNamesFormat names the env-names document shape.
const EnvNamesFormat = "aorta-probe-env-names/1"

// EnvNames is what `aorta-probe env-names` writes: the sorted, unique
// names of the process environment, and the allow-listed marker values.
type EnvNames struct {
	Format  string            `json:"format"`
	Names   []string          `json:"names"`
	Markers map[string]string `json:"markers"`
}

// CollectEnvNames builds the document from environ ("NAME=value" entries,
// as os.Environ returns them). Values never leave this function except for
// the MarkerValues names.
func CollectEnvNames(environ []string) EnvNames {
	e := EnvNames{Format: EnvNamesFormat, Names: []string{}, Markers: map[string]string{}}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if name == "" {
			continue
		}
		e.Names = append(e.Names, name)
		if slices.Contains(MarkerValues, name) {
			e.Markers[name] = value
		}
	}
	slices.Sort(e.Names)
	e.Names = slices.Compact(e.Names)
	return e
}

// ReadEnvNames reads an env-names document.
func ReadEnvNames(path string, stdin *os.File) (EnvNames, error) {
	var e EnvNames
	text, err := readInput(path, stdin)
	if err != nil {
		return e, err
	}
	v, err := decodeJSON(text)
	if err != nil {
		return e, fmt.Errorf("%s: not JSON: %v", path, err)
	}
	m, ok := v.(object)
	if f, _ := m.Get("format"); !ok || f != EnvNamesFormat {
		return e, fmt.Errorf("%s: not an aorta-probe env-names document (format %s)", path, EnvNamesFormat)
	}
	e = EnvNames{Format: EnvNamesFormat, Markers: map[string]string{}}
	names, _ := m.Get("names")
	list, ok := names.([]any)
	if !ok {
		return e, fmt.Errorf("%s: names is not a list", path)
	}
	for _, n := range list {
		if s, ok := n.(string); ok {
			e.Names = append(e.Names, s)
		}
	}
	markers, _ := m.Get("markers")
	mm, _ := markers.(object)
	for _, kv := range mm {
		if s, ok := kv.Value.(string); ok {
			e.Markers[kv.Key] = s
		}
	}
	return e, nil
}

// MarkerDiff is the comparison of two placements' environments.
type MarkerDiff struct {
	A, B         string
	OnlyA, OnlyB []string
	// Markers are the allow-listed markers whose values differ, as
	// "NAME: A -> B" ("unset" when missing).
	Markers []string
	Common  int
}

// CompareEnvNames lists the names present in one placement only.
func CompareEnvNames(aName string, a EnvNames, bName string, b EnvNames) MarkerDiff {
	d := MarkerDiff{A: aName, B: bName, OnlyA: []string{}, OnlyB: []string{}, Markers: []string{}}
	for _, n := range a.Names {
		if slices.Contains(b.Names, n) {
			d.Common++
		} else {
			d.OnlyA = append(d.OnlyA, n)
		}
	}
	for _, n := range b.Names {
		if !slices.Contains(a.Names, n) {
			d.OnlyB = append(d.OnlyB, n)
		}
	}
	for _, n := range MarkerValues {
		va, oka := a.Markers[n]
		vb, okb := b.Markers[n]
		if oka != okb || va != vb {
			show := func(v string, ok bool) string {
				if !ok {
					return "unset"
				}
				return compact(v)
			}
			d.Markers = append(d.Markers, fmt.Sprintf("%s: %s -> %s", n, show(va, oka), show(vb, okb)))
		}
	}
	return d
}

// ExitCode is 0 when both placements have the same names, 1 otherwise.
func (d MarkerDiff) ExitCode() int {
	if len(d.OnlyA)+len(d.OnlyB) == 0 {
		return 0
	}
	return 1
}

func (d MarkerDiff) text(w io.Writer) error {
	var l lines
	if d.ExitCode() == 0 {
		l.add(fmt.Sprintf("same variable names (%d)", d.Common))
	} else {
		l.add(fmt.Sprintf("variable names differ: %d only in A, %d only in B, %d in both", len(d.OnlyA), len(d.OnlyB), d.Common))
	}
	l.add("A: " + d.A)
	l.add("B: " + d.B)
	for _, part := range []struct {
		title string
		names []string
	}{{"Only in A", d.OnlyA}, {"Only in B", d.OnlyB}, {"Marker values that differ", d.Markers}} {
		if len(part.names) == 0 {
			continue
		}
		l.add("")
		l.add(part.title)
		for _, n := range part.names {
			l.add("  " + n)
		}
	}
	_, err := io.WriteString(w, l.b.String())
	return err
}

// Text is the text shape of a MarkerDiff (diff --env-markers --format).
func (d MarkerDiff) Text(w io.Writer, _ RenderOptions) error { return d.text(w) }

// Markdown is the text: --env-markers offers no markdown.
func (d MarkerDiff) Markdown(w io.Writer) error { return d.text(w) }

// JSON is the aorta-probe-diff-env-markers/1 document.
func (d MarkerDiff) JSON(w io.Writer) error {
	return writeJSON(w, struct {
		Format     string   `json:"format"`
		ExitStatus int      `json:"exit_status"`
		A          string   `json:"a"`
		B          string   `json:"b"`
		OnlyA      []string `json:"only_in_a"`
		OnlyB      []string `json:"only_in_b"`
		Markers    []string `json:"marker_values_differ"`
		Common     int      `json:"common"`
	}{"aorta-probe-diff-env-markers/1", d.ExitCode(), d.A, d.B, d.OnlyA, d.OnlyB, d.Markers, d.Common})
}
