package pyfmt

import (
	"reflect"
	"regexp"
	"testing"
)

func TestStripAndSplitlines(t *testing.T) {
	if got := Strip("\x1c\x1f \t7.2.1\u00a0\u3000\n"); got != "7.2.1" {
		t.Errorf("Strip = %q", got)
	}
	if got := Strip("\ufeff7.2"); got != "\ufeff7.2" {
		t.Errorf("BOM must not be stripped: %q", got)
	}
	got := Splitlines("a\r\nb\rc\nd\x0be\x1cf\u2028g\n")
	want := []string{"a", "b", "c", "d", "e", "f", "g"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Splitlines = %q", got)
	}
	if got := Splitlines(""); got != nil {
		t.Errorf("Splitlines(\"\") = %q", got)
	}
}

// TestReSpaceIsIsSpace: the regex classes accept exactly what IsSpace
// does, over every code point.
func TestReSpaceIsIsSpace(t *testing.T) {
	space := regexp.MustCompile(`^` + ReSpace + `$`)
	notSpace := regexp.MustCompile(`^` + ReNotSpace + `$`)
	notSpaceOrComma := regexp.MustCompile(`^` + ReNotSpaceOrComma + `$`)
	for r := rune(0); r <= 0x10ffff; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		s := string(r)
		if space.MatchString(s) != IsSpace(r) || notSpace.MatchString(s) == IsSpace(r) ||
			notSpaceOrComma.MatchString(s) != (!IsSpace(r) && r != ',') {
			t.Fatalf("U+%04X: classes disagree with IsSpace (%v)", r, IsSpace(r))
		}
	}
}

func TestFields(t *testing.T) {
	if got := Fields("\x1c mlx5_0 \u3000\tmlx5_1\n"); !reflect.DeepEqual(got, []string{"mlx5_0", "mlx5_1"}) {
		t.Errorf("Fields = %q", got)
	}
}

func TestWordClasses(t *testing.T) {
	for _, tc := range []struct {
		s    string
		k    int
		want bool
	}{
		{"abc", 3, false}, {"ab c", 2, false}, {"abc", 1, true}, {"a_", 1, true},
		{"aé", 1, true}, {"a½", 1, true}, {"aⅫ", 1, true}, {"a٣", 1, true}, {"a-", 1, false}, {"a\u00a0", 1, false},
	} {
		if got := IsWordAt(tc.s, tc.k); got != tc.want {
			t.Errorf("IsWordAt(%q, %d) = %v", tc.s, tc.k, got)
		}
	}
	for b := 0; b < 256; b++ {
		want := b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if IsASCIIWord(byte(b)) != want {
			t.Errorf("IsASCIIWord(%#x) = %v", b, !want)
		}
	}
}
