package probe

import (
	"context"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
)

func TestBuildSystemTable(t *testing.T) {
	t.Parallel()
	// The Python probe's build_system cases.
	tests := []struct {
		name    string
		tools   []string
		files   map[string]string
		slow    []string
		env     string // FAKEBUCK2_VERSION
		outside bool
		want    string
		ran     []string // argv[1] of the commands run, in order
	}{
		{name: "nothing found", want: `{"kind": "none"}`},
		{name: "buck2 hg git", tools: []string{"buck2", "hg", "git"}, files: map[string]string{".fakebuck2/hg.rc": "0", ".fakebuck2/hg.stdout": "deadbeefcafe\n"}, env: "2025-04-15",
			want: `{"kind": "buck2", "buck2_version": "buck2 2025-04-15", "repo_root": "ROOT", "revision": "deadbeefcafe"}`, ran: []string{"--version", "root", "id"}},
		{name: "dirty hg", tools: []string{"buck2", "hg"},
			want: `{"kind": "buck2", "buck2_version": "buck2 2025-05-06-201beb86106fecdc84e30260b0f1abb5bf576988", "repo_root": "ROOT", "revision": "abc1234+"}`, ran: []string{"--version", "root", "id"}},
		{name: "unstamped git", tools: []string{"buck2", "git"}, env: "38f7c508bf1b87bcdc816bf56d1b9f2d2411c6be <build-id>", files: map[string]string{".fakebuck2/git.rc": "0", ".fakebuck2/git.stdout": "0123456789abcdef0123456789abcdef\n"},
			want: `{"kind": "buck2", "buck2_version": "buck2 38f7c508bf1b87bcdc816bf56d1b9f2d2411c6be <build-id>", "repo_root": "ROOT", "revision": "0123456789abcdef0123456789abcdef"}`, ran: []string{"--version", "root", "rev-parse"}},
		{name: "hg fails git answers", tools: []string{"buck2", "hg", "git"}, files: map[string]string{".fakebuck2/hg.rc": "255", ".fakebuck2/git.rc": "0", ".fakebuck2/git.stdout": "abc123\n"},
			want: `{"kind": "buck2", "buck2_version": "buck2 2025-05-06-201beb86106fecdc84e30260b0f1abb5bf576988", "repo_root": "ROOT", "revision": "abc123"}`, ran: []string{"--version", "root", "id", "rev-parse"}},
		{name: "buck2 only", tools: []string{"buck2"},
			want: `{"kind": "buck2", "buck2_version": "buck2 2025-05-06-201beb86106fecdc84e30260b0f1abb5bf576988", "repo_root": "ROOT", "revision": null}`, ran: []string{"--version", "root"}},
		{name: "both fail", tools: []string{"buck2", "hg"}, files: map[string]string{".fakebuck2/version.rc": "1", ".fakebuck2/root.rc": "1"}, want: `{"kind": "none"}`, ran: []string{"--version", "root"}},
		{name: "outside a project", tools: []string{"buck2", "hg"}, outside: true, want: `{"kind": "none"}`, ran: []string{"--version", "root"}},
		{name: "version timeout", tools: []string{"buck2", "hg"}, slow: []string{"--version"}, want: `{"kind": "none"}`, ran: []string{"--version", "root"}},
		{name: "empty version", tools: []string{"buck2"}, files: map[string]string{".fakebuck2/version.rc": "0", ".fakebuck2/version.stdout": " \n"}, want: `{"kind": "none"}`, ran: []string{"--version", "root"}},
		{name: "non-utf-8 version", tools: []string{"buck2", "hg"}, files: map[string]string{".fakebuck2/version.rc": "0", ".fakebuck2/version.stdout": "buck2 \xfe\n"}, want: `{"kind": "none"}`, ran: []string{"--version"}},
		{name: "non-utf-8 root", tools: []string{"buck2", "hg"}, files: map[string]string{".fakebuck2/root.rc": "0", ".fakebuck2/root.stdout": "/r\xc3\n"}, want: `{"kind": "none"}`, ran: []string{"--version", "root"}},
		{name: "non-utf-8 hg stderr", tools: []string{"buck2", "hg", "git"}, files: map[string]string{".fakebuck2/hg.rc": "0", ".fakebuck2/hg.stdout": "abc\n", ".fakebuck2/hg.stderr": "\xff"}, want: `{"kind": "none"}`, ran: []string{"--version", "root", "id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, app := fakeProject(t, tt.files)
			if tt.outside {
				app = t.TempDir()
			}
			env := []string{"HOME=" + t.TempDir()}
			if tt.env != "" {
				env = append(env, "FAKEBUCK2_VERSION="+tt.env)
			}
			// hg and git run in the repo root; the fakes read their
			// steering files from their cwd.
			c := newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: app, Runner: withEnv(timeoutRunner{tt.slow}, env...), Path: []string{fakeBin(t, tt.tools...)}}, Now: fixedNow})
			s := &state{collector: c}
			got := strings.ReplaceAll(string(pyjson.EncodeCompact(collectBuildSystem(s))), root, "ROOT")
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var ran []string
			for _, c := range s.commands {
				ran = append(ran, c.Argv[1])
			}
			if !slices.Equal(ran, tt.ran) {
				t.Errorf("ran %q, want %q", ran, tt.ran)
			}
			if len(s.reasons) != 0 {
				t.Errorf("build_system appended %q", s.reasons)
			}
		})
	}
}
