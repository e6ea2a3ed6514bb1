package probe

import (
	"slices"
	"strings"
	"testing"
)

func TestPlacementEvidence(t *testing.T) {
	local := map[string]string{
		"BUCK_SCRATCH_PATH": "../../../../buck-out/v2/tmp/root/6dd044292ff31ae1/genrule",
		"TMPDIR":            "/home/u/proj/buck-out/v2/tmp/root/6dd044292ff31ae1/genrule",
		"BUCK2_DAEMON_UUID": "6abfee25-4ecc-4593-a77f-932d92a0047a",
		"BUCK_BUILD_ID":     "5444dcc8-5a74-4844-9c2d-4dd01e962f36",
		"PWD":               "/home/u/proj",
		"PATH":              "/usr/bin:/bin",
	}
	remote := map[string]string{"BUCK_SCRATCH_PATH": "buck-out/v2/tmp/root/6dd044292ff31ae1/genrule", "OUT": "../out/env.json"}
	tests := []struct {
		name     string
		env      map[string]string
		cwd      string
		suggests string
		evidence string // one sentence that must be there
		tmpdir   string
	}{
		{"local genrule", local, "/home/u/proj", "local_action", "TMPDIR is an absolute path ending in the scratch path", "absolute path ending in BUCK_SCRATCH_PATH"},
		{"remote genrule", remote, "/worker/build/1/root", "remote_action", "PATH is unset: buck2 sends no PATH", ""},
		{"local test", map[string]string{"BUCK2_DAEMON_UUID": "u", "BUCK_BUILD_ID": "b", "TMPDIR": "tmp"}, "/", "local_test", "sh_test", "relative path"},
		{"shell", map[string]string{"PATH": "/usr/bin", "PWD": "/x"}, "/x", "not_an_action", "no Buck2 action marker", ""},
		{"declared re test", map[string]string{"AORTA_RE_IMAGE": "docker://registry/img@sha256:abc"}, "/", "remote_action", "only the launcher's declaration", ""},
		{"mixed", map[string]string{"BUCK_SCRATCH_PATH": "x", "BUCK_BUILD_ID": "b"}, "/", "inconclusive", "markers disagree", ""},
		{"local with image", func() map[string]string {
			m := map[string]string{"AORTA_RE_IMAGE": "img"}
			for k, v := range local {
				m[k] = v
			}
			return m
		}(), "/", "local_action", "disagree", "absolute path ending in BUCK_SCRATCH_PATH"},
		{"tmpdir elsewhere", map[string]string{"BUCK_SCRATCH_PATH": "buck-out/v2/tmp/x", "TMPDIR": "/tmp"}, "/", "remote_action", "consistent with a remote-execution worker", "absolute path not ending in BUCK_SCRATCH_PATH"},
		// A local action whose TMPDIR is elsewhere: the detail says "not
		// ending in", and the evidence must not claim that it does.
		{"local tmpdir elsewhere", func() map[string]string {
			m := map[string]string{}
			for k, v := range local {
				m[k] = v
			}
			m["TMPDIR"] = "/tmp"
			return m
		}(), "/home/u/proj", "local_action", "BUCK2_DAEMON_UUID and BUCK_BUILD_ID are set", "absolute path not ending in BUCK_SCRATCH_PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := func(k string) *string {
				if v, ok := tt.env[k]; ok {
					return &v
				}
				return nil
			}
			p := placementEvidence(env, tt.cwd)
			if p.Suggests != tt.suggests {
				t.Errorf("suggests %s, want %s (%q)", p.Suggests, tt.suggests, p.Evidence)
			}
			if !slices.ContainsFunc(p.Evidence, func(s string) bool { return strings.Contains(s, tt.evidence) }) {
				t.Errorf("evidence %q lacks %q", p.Evidence, tt.evidence)
			}
			const tmpClaim = "TMPDIR is an absolute path ending in the scratch path"
			wantClaim := tt.tmpdir == "absolute path ending in BUCK_SCRATCH_PATH" && tt.suggests == "local_action"
			if got := slices.ContainsFunc(p.Evidence, func(s string) bool { return strings.Contains(s, tmpClaim) }); got != wantClaim {
				t.Errorf("evidence %q: claims TMPDIR ends in the scratch path = %v, want %v", p.Evidence, got, wantClaim)
			}
			if last := p.Evidence[len(p.Evidence)-1]; !strings.Contains(last, "not proof") {
				t.Errorf("last sentence %q", last)
			}
			names := []string{}
			for _, s := range p.Signals {
				names = append(names, s.Name)
				switch s.Name {
				case "BUCK_SCRATCH_PATH", "BUCK2_DAEMON_UUID", "BUCK_BUILD_ID":
					if v, ok := tt.env[s.Name]; ok && (s.Value == nil || *s.Value != v) {
						t.Errorf("%s value %v", s.Name, s.Value)
					}
				default:
					if s.Value != nil {
						t.Errorf("%s value recorded: %s", s.Name, *s.Value)
					}
				}
				if s.Name == "TMPDIR" && tt.tmpdir != "" && (s.Detail == nil || *s.Detail != tt.tmpdir) {
					t.Errorf("TMPDIR detail %v, want %s", s.Detail, tt.tmpdir)
				}
			}
			if !slices.Equal(names, []string{"BUCK_SCRATCH_PATH", "BUCK2_DAEMON_UUID", "BUCK_BUILD_ID", "TMPDIR", "PWD", "PATH", "AORTA_RE_IMAGE"}) {
				t.Errorf("signals %q", names)
			}
		})
	}
}

func TestScratchTail(t *testing.T) {
	for in, want := range map[string]string{"../../buck-out/v2/tmp/x": "buck-out/v2/tmp/x", "buck-out/v2/tmp/x/": "buck-out/v2/tmp/x", "..": "", "/abs": "", ".": ""} {
		if got := scratchTail(in); got != want {
			t.Errorf("scratchTail(%q) = %q, want %q", in, got, want)
		}
	}
}
