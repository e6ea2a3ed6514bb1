package cli

import (
	"testing"

	_ "aorta-probe/internal/golden"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"diff", "diff", 0},
		{"dif", "diff", 1},
		{"difff", "diff", 1},
		{"idff", "diff", 1}, // a transposition is one edit
		{"valdate", "validate", 1},
		{"vaildate", "validate", 1},
		{"off", "diff", 2},
		{"hello", "help", 2},
		{"env", "env-names", 6},
		{"", "help", 4},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a transposed pair
		{"héla", "help", 2},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestResembles(t *testing.T) {
	names := []string{"validate", "diff", "env-names", "capture", "help"}
	for _, tc := range []struct {
		word, want string
	}{
		{"valdate", "validate"},
		{"dif", "diff"},
		{"Diff", "diff"},
		{"VALIDATE", "validate"},
		{"captrue", "capture"},
		{"env-name", "env-names"},
		{"envnames", "env-names"},
		{"hepl", "help"},
		{"df", "diff"},
		// Not a mistyping: a name, a path, a flag, a file with an
		// extension, or a word three edits or more away.
		{"diff", ""},
		{"help", ""},
		{"./valdate", ""},
		{"out/dif", ""},
		{"dif.json", ""},
		{"-", ""},
		{"--dif", ""},
		{"", ""},
		{"env", ""},
		{"node", ""},
		{"capt", ""},
		{"x", ""},
	} {
		got, ok := Resembles(tc.word, names)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Resembles(%q) = %q, %v; want %q", tc.word, got, ok, tc.want)
		}
	}
}

func TestSuggestFlag(t *testing.T) {
	names := []string{"-o", "--output", "--summary", "--all", "--fleet", "--root", "--help", "-h", "--env-markers"}
	for _, tc := range []struct {
		word, want string
	}{
		{"--summry", "--summary"},
		{"--SUMMARY", "--summary"},
		{"--sumary", "--summary"},
		{"-summary", "--summary"},
		{"--fleat", "--fleet"},
		{"--flet", "--fleet"},
		{"--rot", "--root"},
		{"--env-marker", "--env-markers"},
		{"--ouptut", "--output"},
		// Not a mistyping: a flag itself, a short word, something far.
		{"--summary", ""},
		{"--al", ""},
		{"-x", ""},
		{"--x", ""},
		{"--", ""},
		{"--bogus", ""},
		{"--sum", ""},
	} {
		got, ok := SuggestFlag(tc.word, names)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("SuggestFlag(%q) = %q, %v, want %q", tc.word, got, ok, tc.want)
		}
	}
	if err := UnknownFlag("--summry", names); err.Error() != "unknown flag --summry; did you mean --summary?" {
		t.Errorf("UnknownFlag: %v", err)
	}
	if err := UnknownFlag("--bogus", names); err.Error() != "unknown flag --bogus" {
		t.Errorf("UnknownFlag: %v", err)
	}
}
