package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"aorta-probe/internal/cli/capture"
)

// TestUsageNamesSubcommands: every subcommand of subcommandTable
// (diff_cmd.go) has a Usage line and an entry under "Subcommands" with its
// purpose and a pointer to a doc of docs/ that exists; diff's modes are in
// the Usage lines too.
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
	for _, c := range subcommandTable {
		if !regexp.MustCompile(`(?m)^(Usage:| {6}) aorta-probe ` + regexp.QuoteMeta(c.name) + `( |$)`).MatchString(synopsis) {
			t.Errorf("no Usage line for %s", c.name)
		}
		text, ok := entries[c.name]
		if !ok {
			t.Errorf("%s is not under Subcommands", c.name)
			continue
		}
		doc := regexp.MustCompile(`\((docs/[a-z0-9-]+\.md)\)$`).FindStringSubmatch(text)
		if doc == nil {
			t.Errorf("%s: no (docs/….md) at the end of %q", c.name, text)
		} else if _, err := os.Stat(doc[1]); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		delete(entries, c.name)
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
