package capture

import (
	"regexp"
	"slices"
	"testing"
)

// TestFlagTable walks the flag table: every name is unique, and the names
// are exactly the flags the usage text lists.
func TestFlagTable(t *testing.T) {
	var names []string
	for _, o := range flagTable {
		for _, n := range o.names {
			if slices.Contains(names, n) {
				t.Errorf("flag %s listed twice", n)
			}
			names = append(names, n)
		}
	}
	listed := regexp.MustCompile(`(?m)^  (-[a-z]), (--[a-z-]+)|^  (--[a-z-]+)`).FindAllStringSubmatch(Usage, -1)
	var want []string
	for _, m := range listed {
		for _, n := range m[1:] {
			if n != "" {
				want = append(want, n)
			}
		}
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("flag table %q\nusage lists %q", names, want)
	}
}
