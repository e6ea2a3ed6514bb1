package main

import "testing"

// TestSubcommandDispatch: only the first argument "diff" or "env-names"
// leaves the capture path; an OUT path or a flag stays a capture.
func TestSubcommandDispatch(t *testing.T) {
	for _, args := range [][]string{nil, {"env.json"}, {"./diff"}, {"-o", "diff"}, {"--summary", "diff"}} {
		if _, ok := subcommand(args); ok {
			t.Errorf("subcommand(%q) dispatched", args)
		}
	}
}
