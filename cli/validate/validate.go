// Package validate is `aorta-probe validate FILE...`: documents checked
// against the generated JSON Schema (docs/schema.md).
package validate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
	"aorta-probe/internal/docread"
	"aorta-probe/internal/visible"
	"aorta-probe/schema/jsonschema"
)

const usage = `Usage: aorta-probe validate FILE... (- reads stdin)

Check env.json documents (written by aorta-probe or by the aorta Python
probe, schema 1.0 to 1.16) against docs/schema/env-1.16.schema.json. Each
problem is one line on stdout: FILE: $.path: what is wrong. A valid document
prints nothing. See docs/schema.md.

Exit status: 0 when every document is valid, 1 when one is invalid, 2 when a
file cannot be read or is not JSON (one line on stderr), when stdout cannot
be written, or for a usage error.
`

// Run is `aorta-probe validate FILE...` (docs/schema.md), stopped promptly
// by a signal (cli.Interruptible).
func Run(args []string, p cli.Process) int {
	var stdin io.Reader
	if p.Stdin != nil {
		stdin = p.Stdin
	}
	return cli.Interruptible("validate", p.Signals, p.Stderr, func(*cli.Watch) int {
		return check(args, stdin, p.Stdout, p.Stderr)
	})
}

// check validates the documents args names.
func check(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var files []string
	stdinSeen := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case a == "--help" || a == "-h":
			return output.Help(stdout, stderr, "aorta-probe validate", usage, 2)
		case a != "-" && strings.HasPrefix(a, "-"):
			return usageError(stderr, cli.UnknownFlag(a, []string{"-h", "--help"}).Error())
		default:
			files = append(files, a)
		}
	}
	for _, f := range files {
		if f == "-" {
			if stdinSeen {
				return usageError(stderr, "- (stdin) given more than once")
			}
			stdinSeen = true
		}
	}
	if len(files) == 0 {
		return usageError(stderr, "no FILE given")
	}
	code := 0
	for _, f := range files {
		text, err := readDocument(f, stdin)
		if err == nil {
			var ps []jsonschema.Problem
			if ps, err = jsonschema.ValidateJSON(text); err == nil {
				for _, p := range ps {
					// As visible shows text (docs/usage.md, "Control
					// and bidi characters"): a file name is the user's.
					if _, err := fmt.Fprintln(stdout, visible.Escape(f+": "+fmt.Sprint(p))); err != nil {
						return output.FailedStdout(stderr, "aorta-probe validate", err, 2)
					}
				}
				if len(ps) > 0 {
					code = max(code, 1)
				}
				continue
			}
			err = fmt.Errorf("not JSON: %w", err)
		}
		fmt.Fprintf(stderr, "%s: %v\n", f, err)
		code = 2
	}
	return code
}

// usageError reports a bad command line in one line, the hint included
// (stderr holds one line per file that could not be read, and one for a
// usage error: docs/usage.md), exit 2.
func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "aorta-probe validate: %s; try 'aorta-probe validate --help'\n", msg)
	return 2
}

// readDocument reads a file, or stdin for "-", through the bounded reader
// diff shares (internal/docread, docs/usage.md). The error names the
// operation, not the path (the caller prints the path).
func readDocument(name string, stdin io.Reader) (string, error) {
	text, err := docread.Read(name, stdin)
	if err != nil {
		return "", cannot(err)
	}
	return text, nil
}

func cannot(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot %s: %w", pe.Op, pe.Err)
	}
	return err
}
