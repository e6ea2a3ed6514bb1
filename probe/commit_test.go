package probe

import (
	"testing"

	"aorta-probe/internal/golden"
)

func TestExtractCommit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"3.5.1+rocm7.2.1.gita272dfa8", "a272dfa8"},
		{"0.1.11.dev32+g9a469a608", "9a469a608"},
		{"1.2.0+5.g0123abc", "0123abc"},
		{"0.1.11+gA469A608", "a469a608"},
		{"2.9.1+rocm7.2.1.gitff65f5bc", "ff65f5bc"},
		{"2.13.0a0+fb", ""},
		{"2.12.0+cpu", ""},
		{"2.10.0.dev+rocm7.0", ""},
		{"3.5.0+fb", ""},
		{"0.1.4+rocm7.2.gitabc", ""},
		{"", ""},
		{"+git0123456", "0123456"},
		{"+git012345", ""}, // 6 hex: too short
		{"+git0123456789012345678901234567890123456789", "0123456789012345678901234567890123456789"}, // 40
		{"+git01234567890123456789012345678901234567890", ""},                                        // 41: no boundary inside
		{"+git0123456z", ""},                   // no boundary
		{"+git0123456-x", "0123456"},           // '-' is a boundary
		{"+git0123456é", ""},                   // Unicode letter: no boundary
		{".12.git0123abc+g7654321", "0123abc"}, // A beats B
		{"x+gdeadbeef.gitcafe", "deadbeef"},    // A fails (cafe short), B
		{"1.0+123git0123456", ""},              // digits need a dot
		{"1.0+123.GIT0123456", "0123456"},
	} {
		got := extractCommit(tc.in)
		if (got == nil && tc.want != "") || (got != nil && *got != tc.want) {
			t.Errorf("extractCommit(%q) = %v, want %q", tc.in, golden.OrNull(got), tc.want)
		}
	}
}

func TestCommitFromAttr(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		in   *string
		want string
	}{
		{nil, ""},
		{s("deadbeef1234"), "deadbeef1234"},
		{s("unknown"), ""},
		{s("dirty"), ""},
		{s("v2.13.0-release"), ""},
		{s("N/A"), ""},
		{s("FF65F5BC672795C5E5033900EA0A0C4F8566C8CF"), "ff65f5bc672795c5e5033900ea0a0c4f8566c8cf"},
		{s("  abcdef0  "), "abcdef0"},
		{s("   "), ""},
		{s("1.0+gitabcdef0"), "abcdef0"},
	} {
		got := commitFromAttr(tc.in)
		if (got == nil && tc.want != "") || (got != nil && *got != tc.want) {
			t.Errorf("commitFromAttr(%v) = %v, want %q", golden.OrNull(tc.in), golden.OrNull(got), tc.want)
		}
	}
	if c := packageCommit(s("1.4.0"), []*string{nil, nil, nil, nil, s("deadbeef1234")}); golden.OrNull(c) != "deadbeef1234" {
		t.Errorf("fbgemm version.git_version: %v", golden.OrNull(c))
	}
	if c := packageCommit(s("3.5.1+rocm7.2.1.gita272dfa8"), []*string{s("ffffffffff")}); golden.OrNull(c) != "a272dfa8" {
		t.Errorf("version first: %v", golden.OrNull(c))
	}
}

func FuzzExtractCommit(f *testing.F) {
	for _, s := range []string{"3.5.1+rocm7.2.1.gita272dfa8", "0.1.11.dev32+g9a469a608", "+git", ".1.g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := extractCommit(s)
		if c != nil && (len(*c) < 7 || len(*c) > 40 || !isHexString(*c, 7, 40)) {
			t.Fatalf("extractCommit(%q) = %q", s, *c)
		}
	})
}
