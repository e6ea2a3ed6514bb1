package probe

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// Tests of the command-driven hardware blocks against hostile tools: ones
// that never exit, print megabytes, die by a signal, or are not executable.
//
// The timeouts are the spec's constants (5 s, 30 s); the probe's Runner seam
// makes them injectable: hostileRunner checks that each command asked for
// its spec timeout, then shortens it for the commands a test names as
// hanging only, so a test waits a fraction of a second for them, and
// lengthens it for every other command, so that a healthy or crashing tool
// is never cut short on a loaded machine: which commands time out is a
// state the test sets, not a race against the wall clock.

const hangTimeout = 100 * time.Millisecond

type hostileRunner struct {
	t    *testing.T
	hang map[string]bool
}

// toolOf is the program a command runs: argv[0]'s base name, or the
// command sudo runs.
func toolOf(argv []string) string {
	if filepath.Base(argv[0]) == "sudo" && len(argv) > 3 {
		return filepath.Base(argv[3])
	}
	return filepath.Base(argv[0])
}

// specTimeout is the timeout the probe gives a tool (docs/hardware.md).
func specTimeout(tool string) time.Duration {
	switch tool {
	case "rdhc", "rdhc.py", "rocm_agent_enumerator":
		return LongTimeout
	}
	return ShortTimeout
}

// hangs reports whether the test named the command as hanging: by its tool
// ("lspci") or by its tool and leading arguments ("nicctl show version").
func (h hostileRunner) hangs(argv []string) bool {
	line := strings.Join(append([]string{toolOf(argv)}, argsOf(argv)...), " ")
	for k := range h.hang {
		if line == k || strings.HasPrefix(line, k+" ") {
			return true
		}
	}
	return false
}

// argsOf is the arguments of the program a command runs (after sudo's).
func argsOf(argv []string) []string {
	if filepath.Base(argv[0]) == "sudo" && len(argv) > 3 {
		return argv[4:]
	}
	return argv[1:]
}

func (h hostileRunner) Run(ctx context.Context, c Command) Result {
	tool := toolOf(c.Argv)
	if want := specTimeout(tool); c.Timeout != want {
		h.t.Errorf("%q runs with timeout %v, want %v", c.Argv, c.Timeout, want)
	}
	c.Timeout = patience
	if h.hangs(c.Argv) {
		c.Timeout = hangTimeout
	}
	return ExecRunner{}.Run(ctx, c)
}

// toolState is a probe state over a fresh root whose bin/ (the whole search
// path) holds the given #!/bin/sh scripts (names with a slash are placed
// relative to the root instead). TMPDIR is <root>/tmp. The commands named
// in hang (hostileRunner.hangs) get hangTimeout.
func toolState(t *testing.T, scripts map[string]string, hang ...string) (*state, string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"bin", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range scripts {
		p := filepath.Join(root, name)
		if !strings.Contains(name, "/") {
			p = filepath.Join(root, "bin", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hr := hostileRunner{t: t, hang: map[string]bool{}}
	for _, h := range hang {
		hr.hang[h] = true
	}
	env := map[string]string{"TMPDIR": filepath.Join(root, "tmp")}
	c := newCollector(context.Background(), Options{
		Root: root, Path: []string{filepath.Join(root, "bin")}, Now: fixedNow, Cwd: "/", Runner: hr, TempName: testTempName,
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	c.rocm = func() rocmRoots { return classicRoots("/opt/rocm", "none") }
	return &state{collector: c, name: "test"}, root
}

func wantReasons(t *testing.T, s *state, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(s.reasons, want) {
		t.Errorf("reasons:\n  %s\nwant:\n  %s", strings.Join(s.reasons, "\n  "), strings.Join(want, "\n  "))
	}
}

func allHIPReasons() []string {
	var r []string
	for _, k := range []string{"version", "platform", "compiler", "runtime", "cpp_config"} {
		r = append(r, "hip."+k+": hipconfig --"+k+" returned no usable value")
	}
	return r
}

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
	if _, err := os.Stat("/usr/bin/hipconfig"); err != nil {
		if os.Getenv("AORTA_PROBE_REQUIRE_SANDBOXES") == "1" {
			t.Fatalf("the real hipconfig is not installed (apt-get install hipcc): %v", err)
		}
		t.Skipf("the real hipconfig is not installed (apt-get install hipcc): %v", err)
	}
	state := func() *state {
		c := newCollector(context.Background(), Options{Root: "/", Path: []string{"/usr/bin", "/bin"}, Now: fixedNow, Cwd: "/",
			Runner: ExecRunner{}, Env: os.LookupEnv})
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

// rdhcSudo is a fake sudo that runs `sudo -n -E <rdhc> --quick --json F`
// as body with $4 = F.
func rdhcSudo(body string) string {
	return `[ "$1" = -n ] && [ "$2" = -E ] && [ "$4" = --quick ] && [ "$5" = --json ] && [ $# -eq 6 ] || { echo "fake sudo: $*" >&2; exit 99; }
shift 2
` + body
}

func TestSystemHealthHostile(t *testing.T) {
	const rdhc = "echo 'must run via sudo' >&2; exit 99"
	for _, tc := range []struct{ name, sudo, reason string }{
		{"never exits", rdhcSudo("exec sleep 600"), "system_health: rdhc exceeded 30s timeout"},
		{"sudo refuses", rdhcSudo("echo 'sudo: a password is required' >&2; exit 1"), "system_health: rdhc exited 1 (stderr: sudo: a password is required)"},
		{"silent refusal", rdhcSudo("exit 1"), "system_health: rdhc exited 1 (no stderr; likely sudo-n unavailable (see docs/env-probe.md#installing-rdhc))"},
		{"dies by SIGSEGV", rdhcSudo("echo 'x' >&2\necho '   ' >&2\nkill -SEGV $$"), "system_health: rdhc exited -11 (stderr: x)"},
		{"writes nothing", rdhcSudo("exit 0"), "system_health: rdhc output not parseable (Expecting value: line 1 column 1 (char 0))"},
		{"garbage", rdhcSudo(`echo '{"a": 1,}' > "$4"`), "system_health: rdhc output not parseable (Expecting property name enclosed in double quotes: line 1 column 9 (char 8))"},
		{"megabytes of stderr", rdhcSudo("yes 'sudo: a password is required' | head -c 6000000 >&2; exit 1"), "system_health: rdhc exited 1 (stderr: sudo: a password is required)"},
		// Out of bounds (bounds.go): written as it is, the document would
		// be one its readers cannot load, or huge.
		{"nested 300 deep", rdhcSudo(`{ printf '%.0s[' $(seq 300); printf 1; printf '%.0s]' $(seq 300); } > "$4"`), "system_health: rdhc output nested deeper than 32 levels; not recorded"},
		{"a 2 MB string", rdhcSudo(`{ printf '{"a": "'; head -c 2000000 /dev/zero | tr '\0' a; printf '"}'; } > "$4"`), "system_health: rdhc output larger than 1048576 bytes; not recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hang []string
			if strings.HasSuffix(tc.reason, "timeout") {
				hang = []string{"rdhc"}
			}
			s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": tc.sudo}, hang...)
			if v := collectSystemHealth(s); v.value != nil {
				t.Errorf("system_health = %s, want null", pyjson.Encode(v.value))
			}
			wantReasons(t, s, tc.reason)
			if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
				t.Errorf("temp files left behind: %q", left)
			}
		})
	}
	t.Run("rdhc removes its output", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": rdhcSudo(`rm "$4"`)})
		collectSystemHealth(s)
		tmp := filepath.Join(root, "tmp", "rdhc_quick_test0000.json")
		wantReasons(t, s, "system_health: rdhc output not parseable ([Errno 2] No such file or directory: '"+tmp+"')")
	})
	// rdhc swaps its output file for a FIFO with a writer that never
	// writes, or for a link to /dev/zero: the read is refused at once,
	// and the file (whatever it now is) is removed.
	for name, swap := range map[string]string{
		"rdhc swaps its output for a FIFO":    `rm "$4"; mkfifo "$4"; sleep 600 > "$4" & exit 0`,
		"rdhc swaps its output for /dev/zero": `rm "$4"; ln -s /dev/zero "$4"`,
	} {
		t.Run(name, func(t *testing.T) {
			s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": rdhcSudo(swap)})
			within(t, "system_health", func() { collectSystemHealth(s) })
			tmp := filepath.Join(root, "tmp", "rdhc_quick_test0000.json")
			wantReasons(t, s, "system_health: rdhc output not parseable ([Errno 22] Invalid argument: '"+tmp+"')")
			if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
				t.Errorf("temp files left behind: %q", left)
			}
		})
	}
	t.Run("no sudo", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"rdhc.py": rdhc})
		collectSystemHealth(s)
		wantReasons(t, s, "system_health: failed to invoke rdhc ([Errno 2] No such file or directory: 'sudo') (see docs/env-probe.md#installing-rdhc)")
		if got := s.commands[0].Argv; got[3] != filepath.Join(root, "bin", "rdhc.py") {
			t.Errorf("rdhc.py is looked up first and run by absolute path: %q", got)
		}
	})
	t.Run("success: 0600 file, verbatim JSON, removed", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": rdhcSudo(`m=$(stat -c %a "$4"); printf '{"mode": "%s", "x": 1.50, "l": []}' "$m" > "$4"`)})
		v := collectSystemHealth(s)
		wantReasons(t, s)
		if got, want := string(pyjson.Encode(v.value)), "{\n  \"mode\": \"600\",\n  \"x\": 1.5,\n  \"l\": []\n}"; got != want {
			t.Errorf("system_health = %s, want %s", got, want)
		}
		if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
			t.Errorf("temp files left behind: %q", left)
		}
	})
	t.Run("temp dir candidates", func(t *testing.T) {
		s, root := toolState(t, nil)
		env := map[string]string{"TMPDIR": filepath.Join(root, "missing"), "TMP": filepath.Join(root, "tmp")}
		s.opt.Env = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		p, err := createRDHCTemp(s)
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		if want := filepath.Join(root, "tmp", "rdhc_quick_test0000.json"); p != want {
			t.Errorf("temp file %s, want %s", p, want)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 0 {
			t.Errorf("temp file mode/size: %v %v", fi, err)
		}
		// A name clash moves on to the next name, as mkstemp does.
		q, err := createRDHCTemp(s)
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(q)
		if filepath.Base(q) != "rdhc_quick_test0001.json" {
			t.Errorf("second temp file %s", q)
		}
	})
	t.Run("no usable temp dir message", func(t *testing.T) {
		if got, want := noTempDirError("No usable temporary directory found in ['/x', '/tmp']").Error(), "[Errno 2] No usable temporary directory found in ['/x', '/tmp']"; got != want {
			t.Errorf("%q", got)
		}
	})
}

func TestNICRunHostile(t *testing.T) {
	for _, tc := range []struct {
		name, lspci, sudo string
		hang              []string
		want              []string
	}{
		{"lspci never exits", "exec sleep 600", "", []string{"lspci"}, []string{
			"nics.ainic: lspci exceeded 5s timeout", "nics.broadcom: lspci exceeded 5s timeout", "nics.cx7: lspci exceeded 5s timeout"}},
		{"lspci dies by SIGSEGV", "kill -SEGV $$", "", nil, []string{
			"nics.ainic: lspci exited -11 (no stderr)", "nics.broadcom: lspci exited -11 (no stderr)", "nics.cx7: lspci exited -11 (no stderr)"}},
		{"lspci megabytes: present", `case "$2" in 1dd8:1002) yes 'c1:00.0 Ethernet controller' | head -c 6000000;; *) ;; esac`, "", nil, []string{
			"nics.ainic.rdma_devices: ibv_devices not on PATH", "nics.ainic.links: rdma not on PATH"}},
		// The crash takes longer than hangTimeout: only the named
		// "nicctl show version" calls may be cut short.
		{"nicctl under sudo", `case "$2" in 1dd8:1002) echo c1:00.0;; *) ;; esac`, `[ "$1 $2 $3" = "-n -E nicctl" ] || exit 99; case "$5" in version) exec sleep 600;; card) sleep 0.2; kill -SEGV $$;; *) exit 1;; esac`, []string{"nicctl show version"}, []string{
			"nics.ainic.rdma_devices: ibv_devices not on PATH",
			"nics.ainic.links: rdma not on PATH",
			"nics.ainic.nicctl_version: nicctl exited 1 (no stderr; likely sudo-n unavailable)",
			"nics.ainic.card.firmware: nicctl exceeded 5s timeout",
			"nics.ainic.card.host_sw: nicctl exceeded 5s timeout",
			"nics.ainic.card: nicctl exited -11 (no stderr; likely sudo-n unavailable)",
			"nics.ainic.dcqcn: no AINIC RDMA device resolved; cannot query dcqcn"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scripts := map[string]string{"lspci": tc.lspci}
			if tc.sudo != "" {
				scripts["sudo"] = tc.sudo
				scripts["nicctl"] = "exit 99"
			}
			s, _ := toolState(t, scripts, tc.hang...)
			n := collectNICs(s)
			wantReasons(t, s, tc.want...)
			if strings.Contains(tc.name, "present") || tc.sudo != "" {
				if n.AINIC.Present == nil || !*n.AINIC.Present || n.CX7.Present == nil || *n.CX7.Present {
					t.Errorf("nics = %s", pyjson.Encode(n))
				}
			}
		})
	}
	t.Run("sudo missing", func(t *testing.T) {
		s, _ := toolState(t, map[string]string{"lspci": `case "$2" in 1dd8:1002) echo c1:00.0;; esac`, "nicctl": "exit 99", "ibv_devices": "echo rdma0", "rdma": "echo"})
		collectNICs(s)
		wantReasons(t, s,
			"nics.ainic.nicctl_version: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.card.firmware: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.card.host_sw: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.card: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.dcqcn: no AINIC RDMA device resolved; cannot query dcqcn")
	})
}

// TestScenarioCommands checks, over every scenario, that sudo only ever runs
// non-interactively with the caller's environment (sudo -n -E) and only for
// rdhc and nicctl, and that no command is a shell.
func TestScenarioCommands(t *testing.T) {
	archives, err := filepath.Glob("../testdata/roots/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range archives {
		snap := collectScenario(t, a)
		for _, c := range snap.Provenance.Commands {
			switch filepath.Base(c.Argv[0]) {
			case "sudo":
				if len(c.Argv) < 4 || c.Argv[1] != "-n" || c.Argv[2] != "-E" {
					t.Errorf("%s: sudo without -n -E: %q", filepath.Base(a), c.Argv)
				} else if tool := toolOf(c.Argv); tool != "rdhc" && tool != "rdhc.py" && tool != "nicctl" {
					t.Errorf("%s: sudo runs %q", filepath.Base(a), c.Argv)
				}
			case "sh", "bash", "dash":
				t.Errorf("%s: command through a shell: %q", filepath.Base(a), c.Argv)
			case "rdhc", "rdhc.py", "nicctl":
				t.Errorf("%s: %q run without sudo", filepath.Base(a), c.Argv)
			}
		}
	}
}

// stuckRDHC runs every command as a failure at once, except rdhc, which it
// holds until release is closed, whatever the context says (a runner that
// ignores cancellation: the probe that started rdhc is still inside Run
// when Collect returns).
type stuckRDHC struct{ release chan struct{} }

func (r stuckRDHC) Run(ctx context.Context, c Command) Result {
	if toolOf(c.Argv) == "rdhc" {
		<-r.release
		return Result{ExitCode: -9, Err: ErrTimeout}
	}
	return Result{ExitCode: 1, Err: &ExitError{Code: 1}}
}

// TestRDHCTempRemovedWhenAbandoned: the rdhc temp file is removed when
// Collect returns even if the system_health probe was abandoned at the
// deadline and has not reached its own cleanup.
func TestRDHCTempRemovedWhenAbandoned(t *testing.T) {
	_, root := toolState(t, map[string]string{"rdhc": "exit 99", "sudo": "exit 99"})
	release := make(chan struct{})
	defer close(release)
	env := map[string]string{"TMPDIR": filepath.Join(root, "tmp")}
	snap := Collect(context.Background(), Options{
		Root: root, Path: []string{filepath.Join(root, "bin")}, Now: fixedNow, Cwd: "/",
		Deadline: 300 * time.Millisecond, Runner: stuckRDHC{release},
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	if !snap.Provenance.DeadlineHit {
		t.Fatal("the deadline did not cut system_health")
	}
	if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
		t.Errorf("temp files left behind when Collect returned: %q", left)
	}
}
