package triage

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

const envNamesUsage = `Usage: aorta-probe env-names [OUT|-]

Write the NAMES of every environment variable of this process (sorted, as
JSON), never their values, except the placement markers BUCK_BUILD_ID and
BUCK_SCRATCH_PATH. OUT is written atomically; without OUT, or with -, to
standard output. Run it inside a Buck2 action locally and remote, then
compare with 'aorta-probe diff --env-markers A B' (docs/buck2.md).
`

// EnvNamesMain is `aorta-probe env-names [OUT|-]`: exit 0 written, 1 not
// writable, 2 usage error.
func EnvNamesMain(args []string, environ []string, io IO) int {
	out := "-"
	var pos []string
	for _, a := range args {
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(io.Stdout, envNamesUsage)
			return 0
		case a != "-" && strings.HasPrefix(a, "-"):
			fmt.Fprintf(io.Stderr, "aorta-probe env-names: unknown flag %s\nTry 'aorta-probe env-names --help' for help.\n", a)
			return 2
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 1 {
		fmt.Fprintf(io.Stderr, "aorta-probe env-names: at most one output, got %d\nTry 'aorta-probe env-names --help' for help.\n", len(pos))
		return 2
	}
	if len(pos) == 1 {
		out = pos[0]
	}
	b, err := json.MarshalIndent(CollectEnvNames(environ), "", "  ")
	if err != nil {
		fmt.Fprintf(io.Stderr, "aorta-probe env-names: %v\n", err)
		return 1
	}
	b = append(b, '\n')
	write := io.WriteOut
	if write == nil {
		write = writeOut(io.Stdout)
	}
	if err := write(out, b); err != nil {
		where := out
		if out == "-" {
			where = "to stdout"
		}
		fmt.Fprintf(io.Stderr, "aorta-probe env-names: failed to write %s: %v\n", where, err)
		return 1
	}
	return 0
}

// writeOut is IO.WriteOut's default: stdout as given, a file atomically.
func writeOut(stdout io.Writer) func(string, []byte) error {
	return func(out string, b []byte) error {
		if out == "-" {
			_, err := stdout.Write(b)
			return err
		}
		return unwrapPath(writeAtomic(out, b))
	}
}

// writeAtomic writes b to a temporary file next to path and renames it.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
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

func envMarkersMain(c diffArgs, io IO) int {
	var e [2]EnvNames
	for i, f := range c.files {
		var err error
		if e[i], err = ReadEnvNames(f, io.Stdin); err != nil {
			fmt.Fprintf(io.Stderr, "aorta-probe diff: %v\n", oneLine(err))
			return 2
		}
	}
	return writeReport(c, io, markerReport{CompareEnvNames(c.files[0], e[0], c.files[1], e[1])})
}

// markerReport is a MarkerDiff in the --format shapes; markdown, which
// --env-markers does not offer, is the text.
type markerReport struct{ MarkerDiff }

func (d markerReport) Text(w io.Writer, _ RenderOptions) error { return d.text(w) }

func (d markerReport) Markdown(w io.Writer) error { return d.text(w) }

func (d markerReport) JSON(w io.Writer) error {
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
