// Package diff is `aorta-probe diff` in its three modes (two documents,
// --fleet, --env-markers; docs/triage.md): the arguments, the reading, the
// --format and the exit status around package triage, which judges.
package diff

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
	"aorta-probe/triage"
)

// Run is `aorta-probe diff ARGS`, stopped promptly by a signal
// (cli.Interruptible).
func Run(args []string, p cli.Process) int {
	return cli.Interruptible("diff", p.Signals, p.Stderr, func(*cli.Watch) int {
		return run(args, NewIO(p.Stdin, p.Stdout, p.Stderr))
	})
}

const diffUsage = `Usage: aorta-probe diff [--format text|markdown|json] A.json B.json
       aorta-probe diff --fleet [--all] [--format text|markdown|json] DIR|FILE...
       aorta-probe diff --env-markers [--format text|json] A B

Compare env.json documents written by aorta-probe (any schema 1.x, with or
without probe_provenance). "-" reads one side from standard input.

  (default)       verdict on the kernel's proofs first (different places:
                  another machine or boot, or another container or
                  namespace / same place / same place (advisory:
                  namespace inodes are reused) / cannot tell), the
                  placement block, then the identity differences ranked
                  by how likely they change numerics
  --fleet         many documents (files, or every *.json in DIR): the
                  majority identity, each outlier with what differs, the
                  groups when no strict majority, the boots and places
  --all           with --fleet: list every document of each group, every
                  place and every unreadable document (without it each
                  list stops after a few, "… and N more")
  --env-markers   two 'aorta-probe env-names' outputs: variable names
                  present in one placement and not the other
  --format F      text (default; prose in 80 columns, every value whole
                  on its line; colour only on a terminal without
                  NO_COLOR), markdown, or json (docs/triage.md)

Exit status: 0 same place and same software (fleet: no outlier and a
strict majority; markers: same names), 1 any difference, 2 trouble
(unreadable file, not JSON, not an env document, usage error).
`

// IO is what diff talks to.
type IO struct {
	Stdin          *os.File
	Stdout, Stderr io.Writer
	// Color is true when stdout is a terminal and NO_COLOR is unset.
	Color bool
}

// NewIO wraps the given streams; colour is on only when stdout is a
// terminal and NO_COLOR is unset.
func NewIO(stdin *os.File, stdout, stderr io.Writer) IO {
	_, noColor := os.LookupEnv("NO_COLOR")
	f, isFile := stdout.(*os.File)
	return IO{Stdin: stdin, Stdout: stdout, Stderr: stderr, Color: !noColor && isFile && isTerminal(f)}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// diffFlags is every flag diff takes (parseDiffArgs), for the
// suggestion of an unknown one.
var diffFlags = []string{"--fleet", "--all", "--env-markers", "--format", "--help", "-h"}

type diffArgs struct {
	format     string
	fleet      bool
	all        bool
	envMarkers bool
	help       bool
	files      []string
}

func parseDiffArgs(args []string) (diffArgs, error) {
	c := diffArgs{format: "text"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			c.files = append(c.files, args[i+1:]...)
			i = len(args)
		case a == "-" || !strings.HasPrefix(a, "-"):
			c.files = append(c.files, a)
		case a == "--fleet":
			c.fleet = true
		case a == "--all":
			c.all = true
		case a == "--env-markers":
			c.envMarkers = true
		case a == "-h" || a == "--help":
			c.help = true
		case a == "--format" || strings.HasPrefix(a, "--format="):
			v, ok := strings.CutPrefix(a, "--format=")
			if !ok {
				if i+1 >= len(args) {
					return c, fmt.Errorf("--format needs a value")
				}
				i++
				v = args[i]
			}
			switch v {
			case "text", "markdown", "json":
				c.format = v
			default:
				return c, fmt.Errorf("--format must be text, markdown or json, got %q", v)
			}
		default:
			flag, _, _ := strings.Cut(a, "=")
			return c, cli.UnknownFlag(flag, diffFlags)
		}
	}
	if c.help {
		return c, nil
	}
	switch {
	case c.fleet && c.envMarkers:
		return c, fmt.Errorf("--fleet and --env-markers are mutually exclusive")
	case c.all && !c.fleet:
		return c, fmt.Errorf("--all needs --fleet")
	case c.fleet && len(c.files) == 0:
		return c, fmt.Errorf("--fleet needs a directory or files")
	case c.fleet && slices.Contains(c.files, "-"):
		// Many documents cannot share one standard input; a file
		// named - is ./-.
		return c, fmt.Errorf("--fleet reads files and directories, not standard input (-)")
	case c.fleet:
	case c.envMarkers && c.format == "markdown":
		return c, fmt.Errorf("--env-markers writes text or json, not markdown")
	case len(c.files) != 2:
		return c, fmt.Errorf("need exactly two documents, got %d", len(c.files))
	case c.files[0] == "-" && c.files[1] == "-":
		return c, fmt.Errorf("only one side can be standard input")
	}
	return c, nil
}

// run is `aorta-probe diff ARGS`; it returns the exit status.
func run(args []string, io IO) int {
	c, err := parseDiffArgs(args)
	if err != nil {
		fmt.Fprintf(io.Stderr, "aorta-probe diff: %v\n", err)
		fmt.Fprintln(io.Stderr, "Try 'aorta-probe diff --help' for help.")
		return 2
	}
	if c.help {
		return output.Help(io.Stdout, io.Stderr, "aorta-probe diff", diffUsage, 2)
	}
	switch {
	case c.fleet:
		return fleetMain(c, io)
	case c.envMarkers:
		return envMarkersMain(c, io)
	}
	var docs [2]*triage.Document
	for i, f := range c.files {
		if docs[i], err = triage.ReadFile(f, io.Stdin); err != nil {
			fmt.Fprintf(io.Stderr, "aorta-probe diff: %v\n", triage.OneLine(err))
			return 2
		}
	}
	for _, d := range docs {
		if note := triage.SchemaNote(d.Name, d.Problems); note != "" {
			fmt.Fprintln(io.Stderr, note)
		}
	}
	return writeReport(c, io, triage.Compare(docs[0], docs[1]))
}

// report is a diff result in the shapes --format names.
type report interface {
	Text(w io.Writer, o triage.RenderOptions) error
	Markdown(w io.Writer) error
	JSON(w io.Writer) error
	ExitCode() int
}

// writeReport writes r to stdout in c.format and returns r's exit status,
// or 2 when stdout cannot be written (output.FailedStdout: 1 would read
// as "differences").
func writeReport(c diffArgs, io IO, r report) int {
	var err error
	switch c.format {
	case "json":
		err = r.JSON(io.Stdout)
	case "markdown":
		err = r.Markdown(io.Stdout)
	default:
		err = r.Text(io.Stdout, triage.RenderOptions{Color: io.Color})
	}
	if err != nil {
		return output.FailedStdout(io.Stderr, "aorta-probe diff", err, 2)
	}
	return r.ExitCode()
}

func fleetMain(c diffArgs, io IO) int {
	paths, err := triage.ExpandFleet(c.files)
	if err != nil {
		fmt.Fprintf(io.Stderr, "aorta-probe diff: %v\n", triage.OneLine(err))
		return 2
	}
	if len(paths) == 0 {
		fmt.Fprintf(io.Stderr, "aorta-probe diff: no *.json documents in %s\n", strings.Join(c.files, " "))
		return 2
	}
	restore := triage.FleetGC() // triage/fleet_memory.go
	r := triage.Fleet(paths, 0)
	restore()
	r.ListAll = c.all
	// On stderr, as in the report: the first few (every one with --all),
	// then one line for the rest, so that a fleet where every document
	// fails says so in a few lines, not one per file.
	n := len(r.Unreadable)
	shown := triage.Shown(n, c.all)
	for _, u := range r.Unreadable[:shown] {
		fmt.Fprintf(io.Stderr, "aorta-probe diff: %v\n", triage.OneLine(u.Err))
	}
	switch {
	case n > 0 && r.Documents == 0:
		fmt.Fprintf(io.Stderr, "aorta-probe diff: none of the %d documents could be read%s\n", n, rest(n-shown))
	case n > shown:
		fmt.Fprintf(io.Stderr, "aorta-probe diff: %d of %d documents could not be read%s\n", n, n+r.Documents, rest(n-shown))
	}
	n = len(r.SchemaProblems)
	shown = triage.Shown(n, c.all)
	for _, d := range r.SchemaProblems[:shown] {
		fmt.Fprintln(io.Stderr, triage.SchemaNote(d.Name, d.Problems))
	}
	if n > shown {
		fmt.Fprintf(io.Stderr, "aorta-probe diff: … and %d more documents with schema problems (--all lists them; aorta-probe validate says what)\n", n-shown)
	}
	return writeReport(c, io, r)
}

// rest says how many unreadable documents stderr did not name.
func rest(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d not shown; --all lists them)", n)
}

func envMarkersMain(c diffArgs, io IO) int {
	var e [2]triage.EnvNames
	for i, f := range c.files {
		var err error
		if e[i], err = triage.ReadEnvNames(f, io.Stdin); err != nil {
			fmt.Fprintf(io.Stderr, "aorta-probe diff: %v\n", triage.OneLine(err))
			return 2
		}
	}
	return writeReport(c, io, triage.CompareEnvNames(c.files[0], e[0], c.files[1], e[1]))
}
