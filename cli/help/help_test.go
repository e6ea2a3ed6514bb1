package help

import (
	"bytes"
	"strings"
	"testing"

	"aorta-probe/cli"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestCommand: help alone is the program's --help, help SUB is SUB's
// --help, help help is help's own usage; more than one argument or an
// unknown subcommand is a usage error naming the subcommands.
func TestCommand(t *testing.T) {
	var ran []string
	cmd := func(name string) cli.Command {
		return cli.Command{Name: name, Run: func(args []string, p cli.Process) int {
			ran = append(ran, name+" "+strings.Join(args, " "))
			return 7
		}}
	}
	help := Command([]cli.Command{cmd("diff"), cmd("labels")}, cmd("capture"))
	for _, tc := range []struct {
		args           []string
		code           int
		ran            string
		stdout, stderr string
	}{
		{nil, 7, "capture --help", "", ""},
		{[]string{"labels"}, 7, "labels --help", "", ""},
		{[]string{"help"}, 0, "", "Usage: aorta-probe help [SUBCOMMAND]", ""},
		{[]string{"a", "b"}, 2, "", "", "aorta-probe help: takes at most one subcommand (got 2 arguments)\nTry 'aorta-probe --help' for help.\n"},
		{[]string{"nope"}, 2, "", "", "aorta-probe help: no subcommand \"nope\" (diff, labels)\n"},
	} {
		ran = nil
		var stdout, stderr bytes.Buffer
		code := help.Run(tc.args, cli.Process{Stdout: &stdout, Stderr: &stderr})
		if code != tc.code || strings.Join(ran, "|") != tc.ran {
			t.Errorf("help %q: exit %d ran %q, want %d %q", tc.args, code, ran, tc.code, tc.ran)
		}
		if !strings.Contains(stdout.String(), tc.stdout) || tc.stdout == "" && stdout.Len() > 0 {
			t.Errorf("help %q: stdout %q, want %q", tc.args, stdout.String(), tc.stdout)
		}
		if !strings.HasPrefix(stderr.String(), tc.stderr) || tc.stderr == "" && stderr.Len() > 0 {
			t.Errorf("help %q: stderr %q, want %q", tc.args, stderr.String(), tc.stderr)
		}
	}
}
