package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"aorta-probe/cli/capture"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// TestUsageNamesSubcommands: every command of commands() has a Usage line
// and an entry under "Subcommands" with its purpose and a pointer to a doc
// of docs/ that exists; diff's modes are in the Usage lines too.
func TestUsageNamesSubcommands(t *testing.T) {
	synopsis, _, _ := strings.Cut(capture.Usage, "\n\n")
	_, list, ok := strings.Cut(capture.Usage, "\nSubcommands (each takes --help):\n")
	if !ok {
		t.Fatal("usage has no Subcommands section")
	}
	list, _, _ = strings.Cut(list, "\n\n")
	entry := regexp.MustCompile(`(?m)^  ([a-z-]+) +(.*(?:\n {14}.*)*)`)
	entries := map[string]string{}
	for _, m := range entry.FindAllStringSubmatch(list, -1) {
		entries[m[1]] = m[2]
	}
	for _, c := range commands() {
		if !regexp.MustCompile(`(?m)^(Usage:| {6}) aorta-probe ` + regexp.QuoteMeta(c.Name) + `( |$)`).MatchString(synopsis) {
			t.Errorf("no Usage line for %s", c.Name)
		}
		text, ok := entries[c.Name]
		if !ok {
			t.Errorf("%s is not under Subcommands", c.Name)
			continue
		}
		doc := regexp.MustCompile(`\((docs/[a-z0-9-]+\.md)\)$`).FindStringSubmatch(text)
		if doc == nil {
			t.Errorf("%s: no (docs/….md) at the end of %q", c.Name, text)
		} else if _, err := os.Stat(doc[1]); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		delete(entries, c.Name)
	}
	for name := range entries {
		t.Errorf("usage lists %s, which is not a subcommand", name)
	}
	for _, mode := range []string{"--fleet", "--env-markers"} {
		if !strings.Contains(synopsis, "aorta-probe diff "+mode) {
			t.Errorf("no Usage line for diff %s", mode)
		}
	}
}

// TestSubcommandDispatch: only a first argument naming a subcommand
// leaves the capture path; an OUT path or a flag stays a capture.
func TestSubcommandDispatch(t *testing.T) {
	for _, args := range [][]string{nil, {"env.json"}, {"./diff"}, {"-o", "diff"}, {"--summary", "diff"}} {
		if c, _ := command(args); c.Name != "" {
			t.Errorf("subcommand(%q) dispatched", args)
		}
	}
}

// TestMistypedDispatch: a first bare word within two edits of a
// subcommand is a usage error naming it, in one place (command), for the
// capture and with the subcommand's arguments alike; a path, a word with
// a dot and a distant word stay a capture's OUT.
func TestMistypedDispatch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"valdate"}, "validate"},
		{[]string{"dif", "a.json", "b.json"}, "diff"},
		{[]string{"env-name", "out"}, "env-names"},
		{[]string{"captur", "node.cap"}, "capture"},
		{[]string{"hlep", "diff"}, "help"},
	} {
		var out, errs strings.Builder
		code := run(nil, tc.args, &out, &errs)
		want := "aorta-probe: '" + tc.args[0] + "' is not a subcommand; did you mean " + tc.name + "? (to write the document to a file named " +
			tc.args[0] + ", give it as ./" + tc.args[0] + ")\nTry 'aorta-probe --help' for help.\n"
		if code != 2 || out.Len() != 0 || errs.String() != want {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.args, code, errs.String(), want)
		}
	}
	for _, args := range [][]string{{"./valdate"}, {"valdate.json"}, {"node-7"}, {"-o", "valdate"}, {"--no-python", "dif"}} {
		if c, rest := command(args); c.Name != "" || c.Run == nil || len(rest) != len(args) {
			t.Errorf("%q: not a plain capture of all its arguments", args)
		}
	}
}
