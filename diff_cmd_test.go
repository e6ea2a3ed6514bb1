package main

import (
	"io"
	"testing"
)

// TestSubcommandDispatch: only a first argument naming a subcommand
// leaves the capture path; an OUT path or a flag stays a capture.
func TestSubcommandDispatch(t *testing.T) {
	for _, args := range [][]string{nil, {"env.json"}, {"./diff"}, {"-o", "diff"}, {"--summary", "diff"}} {
		if _, ok := subcommand(nil, args, io.Discard, io.Discard); ok {
			t.Errorf("subcommand(%q) dispatched", args)
		}
	}
}
