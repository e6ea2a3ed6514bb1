package probe

import (
	"strings"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
)

func TestStderrTails(t *testing.T) {
	long := strings.Repeat("é", 250)
	for _, tc := range []struct {
		name, in       string
		nonBlank, last string
		lastOK         bool
	}{
		{"empty", "", "", "", false},
		{"blank lines", "  \n\t\n", "", "", false},
		{"one line", "sudo: a password is required\n", "sudo: a password is required", "sudo: a password is required", true},
		{"trailing blank", "first\n  second  \n\n", "second", "  second", true},
		{"last line indented", "a\n   cannot open /dev/kfd   \n", "cannot open /dev/kfd", "   cannot open /dev/kfd", true},
		{"crlf", "x\r\ny\r\n", "y", "y", true},
		{"200 code points", long, strings.Repeat("é", 200), strings.Repeat("é", 200), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastNonBlankLine(tc.in); got != tc.nonBlank {
				t.Errorf("lastNonBlankLine = %q, want %q", got, tc.nonBlank)
			}
			got, ok := lastLineOfStripped(tc.in)
			if got != tc.last || ok != tc.lastOK {
				t.Errorf("lastLineOfStripped = %q, %v, want %q, %v", got, ok, tc.last, tc.lastOK)
			}
		})
	}
}

func FuzzStderrTails(f *testing.F) {
	f.Add("a\n  b  \n\n")
	f.Add(strings.Repeat("\u2028x", 300))
	f.Fuzz(func(t *testing.T, in string) {
		in = toolText([]byte(in))
		a := lastNonBlankLine(in)
		b, _ := lastLineOfStripped(in)
		if utf8.RuneCountInString(a) > 200 || utf8.RuneCountInString(b) > 200 {
			t.Fatalf("tail longer than 200 code points")
		}
		if a != pyfmt.Strip(a) {
			t.Fatalf("non-blank tail not stripped: %q", a)
		}
	})
}
