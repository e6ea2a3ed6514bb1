package cli

import "unicode/utf8"

// MaxEcho is how many bytes of a user's argument a message repeats: a
// 100 KB --field path or flag is echoed as its first MaxEcho bytes (cut
// at a character boundary) and "…" (docs/usage.md, "Exit status").
const MaxEcho = 80

// Clip is s as a message repeats it: whole when it has at most MaxEcho
// bytes, else its first MaxEcho bytes, cut at a character boundary, and
// "…".
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	n := MaxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
