package capture

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"aorta-probe/cli"
	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

func TestBuckFlagErrors(t *testing.T) {
	const bad = "Invalid value for --buck-option/--buck-mode-file/--buck-config/--buck-modifier/--buck-default-context: "
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"option needs target", []string{"--buck-option", "mode=x"}, "--buck-option, --buck-mode-file, --buck-config, --buck-modifier, and --buck-default-context require --buck-target"},
		{"default needs target", []string{"--buck-default-context"}, "--buck-option, --buck-mode-file, --buck-config, --buck-modifier, and --buck-default-context require --buck-target"},
		{"empty target is no target", []string{"--buck-target=", "--buck-config", "a=b"}, "--buck-option, --buck-mode-file, --buck-config, --buck-modifier, and --buck-default-context require --buck-target"},
		// The target check comes before the mixing check.
		{"mixed without target", []string{"--buck-option", "mode=x", "--buck-modifier", "m"}, "--buck-option, --buck-mode-file, --buck-config, --buck-modifier, and --buck-default-context require --buck-target"},
		{"mixed", []string{"--buck-target", "//a:b", "--buck-option", "mode=x", "--buck-mode-file", "y"}, "--buck-option preserves cross-option ordering and cannot be combined with --buck-mode-file, --buck-config, or --buck-modifier"},
		{"default with option", []string{"--buck-target", "//a:b", "--buck-default-context", "--buck-option", "mode=x"}, "--buck-default-context is mutually exclusive with --buck-option, --buck-mode-file, --buck-config, and --buck-modifier"},
		{"mixed and default", []string{"--buck-target", "//a:b", "--buck-default-context", "--buck-option", "mode=x", "--buck-config", "a=b"}, "--buck-option preserves cross-option ordering and cannot be combined with --buck-mode-file, --buck-config, or --buck-modifier"},
		{"bad option", []string{"--buck-target", "//a:b", "--buck-option", "mode"}, bad + "Buck options must use mode=VALUE, config=KEY=VALUE, or modifier=VALUE"},
		{"second option bad", []string{"--buck-target", "//a:b", "--buck-option", "mode=x", "--buck-option", "config=nokey"}, bad + "Buck config options must use config=KEY=VALUE"},
		{"grouped config", []string{"--buck-target", "//a:b", "--buck-config", "=v"}, bad + "Buck config overrides must use KEY=VALUE with a non-empty key"},
		{"grouped empty mode", []string{"--buck-target", "//a:b", "--buck-mode-file", "", "--buck-config", ""}, bad + "Buck mode file values must be non-empty strings"},
		{"grouped at", []string{"--buck-target", "//a:b", "--buck-mode-file", "@"}, bad + "Buck mode file values must name a file after '@'"},
		{"timeout zero", []string{"--buck-timeout", "0"}, "Invalid value for '--buck-timeout': 0 is not in the range x>=1."},
		{"timeout negative", []string{"--buck-timeout=-3"}, "Invalid value for '--buck-timeout': -3 is not in the range x>=1."},
		{"timeout text", []string{"--buck-timeout", "abc"}, "Invalid value for '--buck-timeout': 'abc' is not a valid integer range."},
		{"timeout float", []string{"--buck-timeout", "1.5"}, "Invalid value for '--buck-timeout': '1.5' is not a valid integer range."},
		{"timeout missing", []string{"--buck-timeout"}, "option --buck-timeout requires a value"},
		{"default takes no value", []string{"--buck-default-context=1"}, "option --buck-default-context does not take a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseArgs(tt.args)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant %s", err, tt.want)
			}
			var stdout, stderr bytes.Buffer
			if code := Main(tt.args, cli.Process{Stdout: &stdout, Stderr: &stderr}); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.HasPrefix(stderr.String(), "aorta-probe: "+tt.want+"\n") {
				t.Errorf("stderr %q", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
}

func TestBuckFlagsParse(t *testing.T) {
	c, err := parseArgs([]string{"out.json", "--buck-target=//app:trainer", "--buck-option", "mode=@root//mode/debug",
		"--buck-option=config=build.profile=debug", "--buck-option", "modifier=//c:linux", "--buck-timeout", " 1_5 "})
	if err != nil {
		t.Fatal(err)
	}
	b := c.options.Buck
	if b.Target != "//app:trainer" || b.Timeout != 15*time.Second {
		t.Errorf("target %q timeout %v", b.Target, b.Timeout)
	}
	if got := b.Context.Args(); !slices.Equal(got, []string{"@root//mode/debug", "-c", "build.profile=debug", "-m", "//c:linux"}) {
		t.Errorf("args %q", got)
	}
	c, err = parseArgs([]string{"--buck-target", "//x:y", "--buck-modifier", "m", "--buck-config", "a=b", "--buck-mode-file", "@f"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.options.Buck.Context.Args(); !slices.Equal(got, []string{"@f", "-c", "a=b", "-m", "m"}) {
		t.Errorf("grouped args %q", got)
	}
	c, err = parseArgs([]string{"--buck-target", "//x:y", "--buck-default-context"})
	if err != nil || c.options.Buck.Context.Source() != "default_confirmed" {
		t.Errorf("default: %v %v", err, c.options.Buck.Context)
	}
	c, err = parseArgs([]string{"--buck-target", "//x:y"})
	if err != nil || c.options.Buck.Context.Source() != "unspecified" || c.options.Buck.Timeout != 0 {
		t.Errorf("unspecified: %v %+v", err, c.options.Buck)
	}
}

func TestUsageListsBuckFlags(t *testing.T) {
	for _, f := range []string{"--buck-target", "--buck-option", "--buck-mode-file", "--buck-config", "--buck-modifier", "--buck-default-context", "--buck-timeout"} {
		if !strings.Contains(Usage, f) {
			t.Errorf("usage lacks %s", f)
		}
	}
}

func TestPyInt(t *testing.T) {
	tests := []struct {
		in string
		n  int64
		ok bool
	}{
		{"10", 10, true}, {" 7\n", 7, true}, {"+3", 3, true}, {"-2", -2, true}, {"1_000", 1000, true}, {"007", 7, true},
		{"", 0, false}, {"1__0", 0, false}, {"_1", 0, false}, {"1_", 0, false}, {"1.0", 0, false}, {"0x10", 0, false}, {"- 1", 0, false},
		// Python's int() also takes other Unicode decimal digits; not here.
		{"١", 0, false},
	}
	for _, tt := range tests {
		n, ok := pyInt(tt.in)
		if n != tt.n || ok != tt.ok {
			t.Errorf("pyInt(%q) = %d, %v; want %d, %v", tt.in, n, ok, tt.n, tt.ok)
		}
	}
}

func FuzzPyInt(f *testing.F) {
	for _, s := range []string{"10", " 1_0 ", "-0", "abc", "1__2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := pyInt(s)
		if !ok {
			return
		}
		if digits := strings.Trim(strings.TrimSpace(s), "+-"); digits == "" || strings.Trim(digits, "0123456789_") != "" {
			t.Fatalf("pyInt(%q) = %d accepted non-digits", s, n)
		}
	})
}
