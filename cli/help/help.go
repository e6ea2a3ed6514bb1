// Package help is `aorta-probe help [SUBCOMMAND]`: the program's usage
// text, or a subcommand's own (its --help).
package help

import (
	"fmt"
	"io"
	"strings"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
)

// usage is help's own help (aorta-probe help help, help --help).
const usage = `Usage: aorta-probe help [SUBCOMMAND]

Print the program's usage text (the same as aorta-probe --help), or
SUBCOMMAND's own (the same as aorta-probe SUBCOMMAND --help). See
docs/usage.md.
`

// Command is help over commands, the subcommands it may name; a plain
// `aorta-probe help` runs plain with --help (the program's usage text).
func Command(commands []cli.Command, plain cli.Command) cli.Command {
	return cli.Command{Name: "help", Run: func(args []string, p cli.Process) int {
		switch {
		case len(args) == 0:
			return plain.Run([]string{"--help"}, p)
		case len(args) > 1:
			return usageError(p.Stderr, fmt.Sprintf("takes at most one subcommand (got %d arguments)", len(args)))
		case args[0] == "help" || args[0] == "--help" || args[0] == "-h":
			return output.Help(p.Stdout, p.Stderr, "aorta-probe help", usage, 1)
		}
		names := make([]string, len(commands))
		for i, c := range commands {
			if c.Name == args[0] {
				return c.Run([]string{"--help"}, p)
			}
			names[i] = c.Name
		}
		return usageError(p.Stderr, fmt.Sprintf("no subcommand %q (%s)", cli.Clip(args[0]), strings.Join(names, ", ")))
	}}
}

func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "aorta-probe help: %s\n", msg)
	fmt.Fprintln(stderr, "Try 'aorta-probe --help' for help.")
	return 2
}
