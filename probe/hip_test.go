package probe

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

func TestHIPHostile(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		hangs      bool
	}{
		{"never exits", "exec sleep 600", true},
		{"child keeps pipes", "sleep 600 &\nwait", true},
		{"endless output", "exec yes 7.2.53211", true},
		{"megabytes then exits", "yes 7.2.53211 | head -c 6000000\nexit 0", false},
		{"dies by SIGSEGV", "echo 7.2.1\nkill -SEGV $$", false},
		{"empty output", "printf ' \\n\\t'", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hang []string
			if tc.hangs {
				hang = []string{"hipconfig"}
			}
			s, _ := toolState(t, map[string]string{"hipconfig": tc.body}, hang...)
			if h := collectHIP(s); h != (schema.HIP{}) {
				t.Errorf("hip = %s, want all null", pyjson.Encode(h))
			}
			wantReasons(t, s, allHIPReasons()...)
		})
	}
	t.Run("not on PATH", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"hipconfig": "echo 1"})
		if err := os.Chmod(filepath.Join(root, "bin", "hipconfig"), 0o644); err != nil {
			t.Fatal(err)
		}
		collectHIP(s)
		wantReasons(t, s, "hip: hipconfig not on PATH; all hip.* fields = null")
		if len(s.commands) != 0 {
			t.Errorf("ran %d commands", len(s.commands))
		}
	})
	t.Run("one run per flag", func(t *testing.T) {
		// A hipconfig that refuses combined flags: every flag alone.
		s, _ := toolState(t, map[string]string{"hipconfig": `case "$*" in --version) echo " 7.2.53211-e1a6bc5663 ";; --platform) echo amd;; --cpp_config) exit 1;; *) exit 99;; esac`})
		h := collectHIP(s)
		if derefOr(h.Version, "") != "7.2.53211-e1a6bc5663" || derefOr(h.Platform, "") != "amd" || h.Compiler != nil {
			t.Errorf("hip = %s", pyjson.Encode(h))
		}
		wantReasons(t, s, allHIPReasons()[2:]...)
		want := []string{"hipconfig --cpp_config --platform --runtime", "hipconfig --compiler --platform --version",
			"hipconfig --cpp_config", "hipconfig --runtime", "hipconfig --compiler", "hipconfig --version", "hipconfig --platform"}
		if argv := commandLines(s); !reflect.DeepEqual(argv, want) {
			t.Errorf("argv = %q", argv)
		}
	})
	t.Run("combined runs hang", func(t *testing.T) {
		// A timed-out combined run is not followed by single runs.
		s, _ := toolState(t, map[string]string{"hipconfig": "exec sleep 600"}, "hipconfig --cpp_config", "hipconfig --compiler")
		if h := collectHIP(s); h != (schema.HIP{}) {
			t.Errorf("hip = %s, want all null", pyjson.Encode(h))
		}
		wantReasons(t, s, allHIPReasons()...)
		if n := len(s.commands); n != 2 {
			t.Errorf("%d commands, want the 2 combined runs: %q", n, commandLines(s))
		}
	})
}

func commandLines(s *state) []string {
	var argv []string
	for _, c := range s.commands {
		argv = append(argv, strings.Join(c.Argv, " "))
	}
	return argv
}

// fakeHipconfig is a hipconfig as hipconfig.pl behaves: the value of each
// flag given, in its fixed order (cpp_config, compiler, platform, runtime,
// version) with nothing between them, each value read from the file of
// that name in dir; a flag without a file is unknown: it prints nothing,
// and when nothing was printed the whole configuration is printed instead.
// Anything else fails loudly.
func fakeHipconfig(dir string) string {
	return `[ $# -gt 0 ] || { echo "fake hipconfig: no flag" >&2; exit 99; }
for a in "$@"; do
  case $a in --cpp_config|--compiler|--platform|--runtime|--version) ;; *) echo "fake hipconfig: unexpected argv: $*" >&2; exit 99 ;; esac
done
printed=
for f in cpp_config compiler platform runtime version; do
  for a in "$@"; do
    if [ "$a" = "--$f" ] && [ -f '` + dir + `'/$f ]; then cat '` + dir + `'/$f; printed=1; fi
  done
done
[ -n "$printed" ] || printf 'HIP version  : (full configuration)\n'
`
}

// TestHIPCombinedRunsEqualSingleRuns: for hipconfigs whose values are
// those of real installs, contain a platform word, whitespace, are empty
// or unknown, the five values and the reasons from the combined runs are
// those of five single runs (what the Python probe runs), and a real
// install's values take two runs.
func TestHIPCombinedRunsEqualSingleRuns(t *testing.T) {
	t.Parallel()
	const amdCpp = " -D__HIP_PLATFORM_HCC__= -D__HIP_PLATFORM_AMD__= -I/usr/include -I/usr/bin/../lib/clang/15.0.6 -I/usr/hsa/include"
	for _, tc := range []struct {
		name   string
		values map[string]string // absent: an unknown flag
		env    string            // $HIP_PLATFORM, "-" for unset
		runs   int               // commands expected
	}{
		{"debian 5.2", map[string]string{"cpp_config": amdCpp, "compiler": "clang", "platform": "amd", "runtime": "rocclr", "version": "5.2.21153-0"}, "-", 2},
		{"rocm 7 nvidia", map[string]string{"cpp_config": " -D__HIP_PLATFORM_NVCC__= -D__HIP_PLATFORM_NVIDIA__= -I/opt/rocm/include -I/usr/local/cuda/include", "compiler": "nvcc", "platform": "nvidia", "runtime": "cuda", "version": "7.2.53211-e1a6bc5663"}, "-", 2},
		{"HIP_PLATFORM=hcc", map[string]string{"cpp_config": amdCpp, "compiler": "clang", "platform": "amd", "runtime": "rocclr", "version": "6.2.41133-dd7f95766"}, "hcc", 2},
		{"newlines and blanks", map[string]string{"cpp_config": "\n -I/x \n", "compiler": " clang\n", "platform": "amd\n", "runtime": "\trocclr", "version": "\n5.2\n"}, "-", 2},
		{"amd in cpp_config", map[string]string{"cpp_config": " -I/home/amd/rocm/include", "compiler": "clang", "platform": "amd", "runtime": "rocclr", "version": "5.2.1"}, "-", 4},
		{"nvidia in version", map[string]string{"cpp_config": "-I/x", "compiler": "nvcc", "platform": "nvidia", "runtime": "cuda", "version": "12.0-nvidia"}, "-", 4},
		{"amd in compiler", map[string]string{"cpp_config": "-I/x", "compiler": "clangamd", "platform": "amd", "runtime": "rocclr", "version": "5.2.1"}, "-", 4},
		{"empty compiler and runtime", map[string]string{"cpp_config": "-I/x", "compiler": "", "platform": "amd", "runtime": " ", "version": "5.2.1"}, "-", 4},
		{"no --runtime flag", map[string]string{"cpp_config": "-I/x", "compiler": "clang", "platform": "amd", "version": "3.3.0"}, "-", 3},
		{"only --version known", map[string]string{"version": "1.5"}, "-", 7},
		{"HIP_PLATFORM=gamd", map[string]string{"cpp_config": "-I/x", "compiler": "clan", "platform": "gamd", "runtime": "rocclr", "version": "5.2.1"}, "gamd", 5},
		{"HIP_PLATFORM empty", map[string]string{"cpp_config": "-I/x", "compiler": "clangamd", "platform": "", "runtime": "rocclr", "version": "5.2.1"}, "", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := t.TempDir()
			for k, v := range tc.values {
				if err := os.WriteFile(filepath.Join(vals, k), []byte(v), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, _ := toolState(t, map[string]string{"hipconfig": fakeHipconfig(vals)})
			if tc.env != "-" {
				s.opt.Env = func(k string) (string, bool) { return tc.env, k == "HIP_PLATFORM" }
			}
			got := collectHIP(s)
			single, _ := toolState(t, map[string]string{"hipconfig": fakeHipconfig(vals)})
			want := schema.HIP{
				Version: hipconfigValue(single, "--version"), Platform: hipconfigValue(single, "--platform"),
				Compiler: hipconfigValue(single, "--compiler"), Runtime: hipconfigValue(single, "--runtime"),
				CppConfig: hipconfigValue(single, "--cpp_config"),
			}
			if string(pyjson.Encode(got)) != string(pyjson.Encode(want)) {
				t.Errorf("combined runs: %s\nsingle runs:   %s", pyjson.Encode(got), pyjson.Encode(want))
			}
			var reasons []string
			for _, k := range []string{"version", "platform", "compiler", "runtime", "cpp_config"} {
				if v := map[string]*string{"version": want.Version, "platform": want.Platform, "compiler": want.Compiler, "runtime": want.Runtime, "cpp_config": want.CppConfig}[k]; v == nil {
					reasons = append(reasons, "hip."+k+": hipconfig --"+k+" returned no usable value")
				}
			}
			wantReasons(t, s, reasons...)
			if n := len(s.commands); n != tc.runs {
				t.Errorf("%d commands, want %d: %q", n, tc.runs, commandLines(s))
			}
		})
	}
}

// TestHIPRealHipconfig: with Debian's hipcc package (the real hipconfig
// under /usr/bin, .ci/run installs it), the two combined runs give the
// five values of five single runs.
func TestHIPRealHipconfig(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/hipconfig"); err != nil {
		if os.Getenv("AORTA_PROBE_REQUIRE_SANDBOXES") == "1" {
			t.Fatalf("the real hipconfig is not installed (apt-get install hipcc): %v", err)
		}
		t.Skipf("the real hipconfig is not installed (apt-get install hipcc): %v", err)
	}
	state := func() *state {
		c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: "/", Path: []string{"/usr/bin", "/bin"}, Cwd: "/", Runner: machine.ExecRunner{}, Env: os.LookupEnv}, Now: fixedNow})
		return &state{collector: c, name: "test"}
	}
	s := state()
	got := collectHIP(s)
	if n := len(s.commands); n != 2 {
		t.Errorf("%d commands, want the 2 combined runs: %q", n, commandLines(s))
	}
	single := state()
	want := schema.HIP{
		Version: hipconfigValue(single, "--version"), Platform: hipconfigValue(single, "--platform"),
		Compiler: hipconfigValue(single, "--compiler"), Runtime: hipconfigValue(single, "--runtime"),
		CppConfig: hipconfigValue(single, "--cpp_config"),
	}
	if string(pyjson.Encode(got)) != string(pyjson.Encode(want)) || got.Version == nil || got.CppConfig == nil {
		t.Errorf("combined runs: %s\nsingle runs:   %s", pyjson.Encode(got), pyjson.Encode(want))
	}
}
