package probe

import (
	"testing"
)

// TestCommitMatchesTweak: null unless the tweak is 7–12 hex digits.
func TestCommitMatchesTweak(t *testing.T) {
	const commit = "abc1234def567890abc1234def567890abc12345"
	for _, tc := range []struct {
		tweak string
		want  string // "null", "true", "false"
	}{
		{"unknown", "null"}, {"abc", "null"}, {"ABC1234", "true"}, {"abc1234def56", "true"},
		{"abc1234def567", "null"}, {"1234567", "false"}, {"", "null"}, {"abc1234 ", "null"},
	} {
		tw := tc.tweak
		got := "null"
		if b := commitMatchesTweak(&[]string{commit}[0], &tw); b != nil {
			got = map[bool]string{true: "true", false: "false"}[*b]
		}
		if got != tc.want {
			t.Errorf("tweak %q: %s, want %s", tc.tweak, got, tc.want)
		}
	}
	if commitMatchesTweak(nil, &[]string{"abc1234"}[0]) != nil {
		t.Error("no commit: want null")
	}
}
