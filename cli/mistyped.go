package cli

import (
	"fmt"
	"slices"
	"strings"
)

// Resembles is the name of names that word looks like a mistyping of:
// a bare word (no '/', no '.', not a flag) within two edits of a name
// (insertion, deletion, substitution or transposition of two neighbours,
// ASCII case ignored) but not equal to it. The nearest name wins, the
// first of equals. A plain capture takes such a word as OUT only written
// as a path (./valdate), so `aorta-probe valdate` is a usage error and
// not a file named valdate (docs/usage.md).
func Resembles(word string, names []string) (string, bool) {
	if word == "" || strings.HasPrefix(word, "-") || strings.ContainsAny(word, "/.") {
		return "", false
	}
	if slices.Contains(names, word) {
		return "", false
	}
	best, bestD, lower := "", 3, strings.ToLower(word)
	for _, n := range names {
		if d := editDistance(lower, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best, best != ""
}

// editDistance is the optimal-string-alignment distance between a and b
// (Damerau–Levenshtein with each substring edited once), in characters.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// rows two back, one back and current, each len(t)+1 long.
	prev2, prev, cur := make([]int, len(t)+1), make([]int, len(t)+1), make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// UnknownFlag is the usage error of a flag that is none of names (every
// name a command takes, with its dashes): "unknown flag NAME", and
// "; did you mean FLAG?" when NAME resembles one (SuggestFlag), as a
// mistyped subcommand gets (docs/usage.md, "Exit status").
func UnknownFlag(name string, names []string) error {
	if flag, ok := SuggestFlag(name, names); ok {
		return fmt.Errorf("unknown flag %s; did you mean %s?", Clip(name), flag)
	}
	return fmt.Errorf("unknown flag %s", Clip(name))
}

// SuggestFlag is the flag of names that name looks like a mistyping of:
// a long flag (--summary) within two edits of name, ASCII case ignored,
// and at most one edit per three characters after the dashes, so that a
// short word (--al) is not taken for any flag. The nearest wins, the
// first of equals.
func SuggestFlag(name string, names []string) (string, bool) {
	word := strings.ToLower(name)
	core := strings.TrimLeft(word, "-")
	if core == "" || slices.Contains(names, name) {
		return "", false
	}
	best, bestD := "", min(3, len([]rune(core))/3+1)
	for _, n := range names {
		if !strings.HasPrefix(n, "--") {
			continue
		}
		if d := editDistance(word, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best, best != ""
}
