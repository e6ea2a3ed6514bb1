package capture

import (
	"slices"
	"strings"
	"testing"
)

// TestRepeatedFlags: a flag that takes one value is a usage error when
// given twice, naming it and both values (docs/usage.md#flags); --field
// and the --buck-* inputs repeat; a flag without a value may repeat.
func TestRepeatedFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-o", "a.json", "-o", "b.json"}, "-o/--output given twice ('a.json', then 'b.json'): give it once"},
		{[]string{"-oa.json", "--output=b.json"}, "-o/--output given twice ('a.json', then 'b.json')"},
		{[]string{"--root", "/a", "--root", "/b"}, "--root given twice ('/a', then '/b')"},
		{[]string{"--python", "p", "--python=p"}, "--python given twice ('p', then 'p')"},
		{[]string{"--deadline", "1s", "--deadline", "2s"}, "--deadline given twice ('1s', then '2s')"},
		{[]string{"--execution-context", "direct", "--execution-context", "buck2_run"}, "--execution-context given twice ('direct', then 'buck2_run')"},
		{[]string{"--out-dir", "/a", "--out-dir", "/b"}, "--out-dir given twice"},
		{[]string{"--buck-target", "//a:b", "--buck-target", "//c:d"}, "--buck-target given twice ('//a:b', then '//c:d')"},
		{[]string{"--buck-target", "//a:b", "--buck-timeout", "1", "--buck-timeout", "2"}, "--buck-timeout given twice"},
		// A long value is echoed bounded.
		{[]string{"--root", strings.Repeat("r", 1000), "--root", "/b"}, "--root given twice ('" + strings.Repeat("r", 80) + "…', then '/b')"},
	} {
		_, err := parseArgs(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
		}
	}
	for _, args := range [][]string{
		{"--field", "a", "--field", "b", "--field", "a"},
		{"--no-python", "--no-python", "--extended", "--extended", "--summary", "--summary"},
		{"--buck-target", "//a:b", "--buck-mode-file", "m1", "--buck-mode-file", "m2", "--buck-config", "a=1", "--buck-config", "b=2"},
		{"--buck-target", "//a:b", "--buck-option", "mode=m1", "--buck-option", "modifier=x"},
	} {
		if _, err := parseArgs(args); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
	c, _ := parseArgs([]string{"--field", "rocm.version", "--field=schema_version", "--field", "rocm.version"})
	if want := []string{"rocm.version", "schema_version", "rocm.version"}; !slices.Equal(c.fields, want) {
		t.Errorf("fields %q, want %q", c.fields, want)
	}
}

// TestCaptureArgs: capture's command line is the plain one whose first
// positional argument is ARCHIVE, whatever flags come before it; its
// errors name capture (its help is capture --help).
func TestCaptureArgs(t *testing.T) {
	for _, tc := range []struct {
		args            []string
		archive, out    string
		redact, help    bool
		deadline, field string
	}{
		{args: []string{"node.cap"}, archive: "node.cap", out: "-"},
		{args: []string{"node.cap", "env.json", "--redact-hostname"}, archive: "node.cap", out: "env.json", redact: true},
		// A flag's value is not taken for ARCHIVE.
		{args: []string{"--deadline", "5s", "-o", "env.json", "node.cap"}, archive: "node.cap", out: "env.json", deadline: "5s"},
		{args: []string{"--field", "rocm", "node.cap"}, archive: "node.cap", out: "-", field: "rocm"},
		{args: []string{"--help"}, help: true},
		{args: []string{"-h", "--bogus-after"}, help: true},
	} {
		c, err := parseCaptureArgs(tc.args)
		if err != nil {
			if !tc.help || !strings.Contains(err.Error(), "unknown flag") {
				t.Errorf("%q: %v", tc.args, err)
			}
			continue
		}
		if c.cmd != "aorta-probe capture" || c.archive != tc.archive || c.redact != tc.redact || c.help != tc.help ||
			(!tc.help && c.out != tc.out) || (tc.deadline != "" && c.options.Deadline.String() != tc.deadline) ||
			(tc.field != "" && !slices.Equal(c.fields, []string{tc.field})) {
			t.Errorf("%q: %+v", tc.args, c)
		}
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "no ARCHIVE given"},
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"node.cap", "--bogus"}, "unknown flag --bogus"},
		{[]string{"--no-python"}, "no ARCHIVE given"},
		{[]string{"-"}, "ARCHIVE must be a file path (got '-')"},
		{[]string{""}, "ARCHIVE must be a file path (got '')"},
		{[]string{"node.cap", "a.json", "b.json"}, "unexpected extra argument 'b.json'"},
		{[]string{"node.cap", "--redact-hostname=yes"}, "option --redact-hostname does not take a value"},
	} {
		if _, err := parseCaptureArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
		}
	}
	// The plain capture does not take capture's flag.
	if _, err := parseArgs([]string{"--redact-hostname"}); err == nil || err.Error() != "unknown flag --redact-hostname" {
		t.Errorf("plain --redact-hostname: %v", err)
	}
}

// TestFieldSyntax: a --field path that names nothing in any document
// is a usage error before anything is collected.
func TestFieldSyntax(t *testing.T) {
	for _, tc := range []struct{ path, err string }{
		{"", "--field needs a non-empty path"},
		{"partial_reasons[abc]", "--field partial_reasons[abc]: [abc] is not a list index (an integer: [0] the first item, [-1] the last)"},
		{"a[0][]", "[] is not a list index"},
		{"a[-]", "[-] is not a list index"},
		{"a[0x1]", "--field a[0x1]: [0x1] is not a list index"},
	} {
		if _, err := parseArgs([]string{"--field", tc.path}); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("--field %q: error %v, want %q", tc.path, err, tc.err)
		}
	}
	for _, path := range []string{"partial_reasons[0]", "gpu_arch.gfx_targets[-1]", "a[99999999999999999999]", "a]", "a[b"} {
		if _, err := parseArgs([]string{"--field", path}); err != nil {
			t.Errorf("--field %q: %v", path, err)
		}
	}
}
