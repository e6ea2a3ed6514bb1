package probe

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
)

func TestParseAgentEnumerator(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"cpu only", "gfx000\n", nil},
		{"mi300 x4", "gfx942\ngfx942\ngfx942\ngfx942\n", []string{"gfx942", "gfx942", "gfx942", "gfx942"}},
		{"placeholder and blanks", "gfx000\n\n  gfx942  \r\ngfx942", []string{"gfx942", "gfx942"}},
		{"no gfx validation", "warning: slow\ngfx950\n", []string{"warning: slow", "gfx950"}},
		{"gfx000 only exact", "gfx0000\n", []string{"gfx0000"}},
		{"unicode whitespace", "\u00a0gfx950\u2003\n\x1c", []string{"gfx950"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseAgentEnumerator(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseAgentEnumerator(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestGPUArchOf(t *testing.T) {
	g := gpuArchOf([]string{"gfx942", "gfx1100", "gfx942"})
	got := string(pyjson.Encode(g))
	want := "{\n  \"agent_count\": 3,\n  \"gfx_targets\": [\n    \"gfx1100\",\n    \"gfx942\"\n  ],\n  \"agent_arch_counts\": {\n    \"gfx1100\": 1,\n    \"gfx942\": 2\n  }\n}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func FuzzParseAgentEnumerator(f *testing.F) {
	f.Add("gfx000\ngfx942\ngfx942\n")
	f.Add("\r\n\x85gfx950\u2028")
	f.Fuzz(func(t *testing.T, in string) {
		targets := parseAgentEnumerator(in)
		for _, tg := range targets {
			if tg == "" || tg == "gfx000" || pyfmt.Strip(tg) != tg {
				t.Fatalf("bad target %q", tg)
			}
		}
		if len(targets) > 0 {
			g := gpuArchOf(targets)
			if *g.AgentCount != len(targets) || len(g.GfxTargets) != len(g.AgentArchCounts) {
				t.Fatalf("inconsistent %+v", g)
			}
		}
	})
}

func TestGPUArchHostile(t *testing.T) {
	for _, tc := range []struct{ name, body, reason string }{
		{"never exits", "exec sleep 600", "gpu_arch: rocm_agent_enumerator exceeded 30s timeout"},
		{"endless output", "exec yes gfx942", "gpu_arch: rocm_agent_enumerator exceeded 30s timeout"},
		{"megabytes then exits", "yes gfx942 | head -c 3000000\nexit 0", "gpu_arch: rocm_agent_enumerator output exceeded 1048576 bytes; not parsed"},
		{"dies by SIGSEGV", "echo gfx942\nkill -SEGV $$", "gpu_arch: rocm_agent_enumerator exited -11 ((no stderr))"},
		{"SIGSEGV after stderr", "echo 'first' >&2\necho '  Segmentation fault in hsa  ' >&2\nkill -SEGV $$", "gpu_arch: rocm_agent_enumerator exited -11 (  Segmentation fault in hsa)"},
		{"kfd denied", "echo 'cannot open /dev/kfd: Permission denied' >&2\nexit 1", "gpu_arch: rocm_agent_enumerator exited 1 (cannot open /dev/kfd: Permission denied)"},
		{"long stderr line", "printf '%0300d\\n' 0 >&2\nexit 2", "gpu_arch: rocm_agent_enumerator exited 2 (" + strings.Repeat("0", 200) + ")"},
		{"cpu agent only", "echo gfx000", "gpu_arch: rocm_agent_enumerator returned no GPU targets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hang []string
			if strings.HasSuffix(tc.reason, "timeout") {
				hang = []string{"rocm_agent_enumerator"}
			}
			s, _ := toolState(t, map[string]string{"rocm_agent_enumerator": tc.body}, hang...)
			if g := collectGPUArch(s); g.AgentCount != nil || g.GfxTargets != nil || g.AgentArchCounts != nil {
				t.Errorf("gpu_arch = %s, want all null", pyjson.Encode(g))
			}
			wantReasons(t, s, tc.reason)
		})
	}
	t.Run("core bin fallback not executable", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"opt/rocm/bin/rocm_agent_enumerator": "echo gfx950"})
		if err := os.Chmod(filepath.Join(root, "opt/rocm/bin/rocm_agent_enumerator"), 0o644); err != nil {
			t.Fatal(err)
		}
		collectGPUArch(s)
		wantReasons(t, s, "gpu_arch: rocm_agent_enumerator invocation failed ([Errno 13] Permission denied: '/opt/rocm/bin/rocm_agent_enumerator')")
	})
	t.Run("core bin fallback", func(t *testing.T) {
		s, _ := toolState(t, map[string]string{"opt/rocm/bin/rocm_agent_enumerator": "printf 'gfx000\\ngfx942\\ngfx942\\n'"})
		g := collectGPUArch(s)
		wantReasons(t, s)
		if got := string(pyjson.Encode(g)); !strings.Contains(got, "\"gfx942\": 2") {
			t.Errorf("gpu_arch = %s", got)
		}
		if got := s.commands[0].Argv; !reflect.DeepEqual(got, []string{"/opt/rocm/bin/rocm_agent_enumerator"}) {
			t.Errorf("argv = %q", got)
		}
	})
	t.Run("foreign root without explicit path runs nothing", func(t *testing.T) {
		s, _ := toolState(t, map[string]string{"opt/rocm/bin/rocm_agent_enumerator": "echo gfx950"})
		s.opt.Path, s.path = nil, nil
		collectGPUArch(s)
		wantReasons(t, s, "gpu_arch: rocm_agent_enumerator not on PATH (install rocminfo / rocm-core, or add /opt/rocm/bin to PATH)")
	})
}
