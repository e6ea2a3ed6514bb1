package buck

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

func TestStripSuffix(t *testing.T) {
	// Expected values computed with Python's
	// re.sub(r"\s+\([^)]*\)\s*$", "", s).strip().
	tests := []struct{ in, want string }{
		{"root//:hello (prelude//platforms:default#904931f735703749)", "root//:hello"},
		{"//x:y(cfg)", "//x:y(cfg)"},
		{"//x:y (a(b))", "//x:y (a(b))"},
		{"//x:y (a) (b)", "//x:y (a)"},
		{"//x:y  ( a ( b )  \n", "//x:y"},
		{"//x:y (a)\n", "//x:y"},
		{" //x:y ", "//x:y"},
		{"//x:y (a\nb)", "//x:y"},
		{"//x:y (", "//x:y ("},
		{"//x:y ()", "//x:y"},
		{"(a)", "(a)"},
		{" (a)", ""},
		{"//x:y\u00a0(a)", "//x:y"},
		{"//x:y (a) x", "//x:y (a) x"},
		{"a (b (c)", "a"},
		{"a (b) (c(d))", "a (b) (c(d))"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := StripSuffix(tt.in); got != tt.want {
			t.Errorf("StripSuffix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKnownLibrary(t *testing.T) {
	// The Python probe's KNOWN_LIBRARY_PATTERNS cases.
	tests := map[string]string{
		"//third-party/rocm:hipblaslt_lib": "hipblaslt", "//third-party/rocm:hipblaslt-lib": "hipblaslt",
		"//some/path:hipblaslt": "hipblaslt", "hipblaslt-foo:lib": "hipblaslt",
		"//third-party/rocm:rccl_lib": "rccl", "//third-party/rocm:rccl-lib": "rccl",
		"//third-party/anp:rccl-anp-lib": "ainic", "//third-party/anp:rccl_anp_lib": "ainic",
		"//third-party/anp:rccl-net-lib": "ainic", "//third-party/anp:rccl_net_lib": "ainic",
		"//x:rccl-anp": "ainic", "//x:rccl-net": "ainic",
		"//third-party/pytorch:torch": "pytorch", ":pytorch": "pytorch", ":torch_hip": "pytorch", ":torch_cuda": "pytorch",
		"//third-party/rocm:hip_runtime": "rocm", ":rocm_runtime": "rocm",
		"//myproj/util:logging": "", "//some/other:unrelated_target": "", "": "",
		"//x:hipblaslt_lib2": "", "//x:rocblas": "", "//x:miopen": "",
	}
	for in, want := range tests {
		if got := KnownLibrary(in); got != want {
			t.Errorf("KnownLibrary(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseLabelsAndMatches(t *testing.T) {
	tests := []struct {
		name   string
		stdout string
		labels []string
		libs   []LibraryMatch
		err    string
		pyType string
	}{
		{
			name:   "modern list",
			stdout: `["//third-party/rocm:hipblaslt_lib (prelude//platforms:default#abc)", "//third-party/pytorch:torch (prelude//platforms:default#abc)", "//util:logging (prelude//platforms:default#abc)"]`,
			labels: []string{"//third-party/rocm:hipblaslt_lib (prelude//platforms:default#abc)", "//third-party/pytorch:torch (prelude//platforms:default#abc)", "//util:logging (prelude//platforms:default#abc)"},
			libs: []LibraryMatch{
				{"hipblaslt", "//third-party/rocm:hipblaslt_lib", "//third-party/rocm:hipblaslt_lib (prelude//platforms:default#abc)"},
				{"pytorch", "//third-party/pytorch:torch", "//third-party/pytorch:torch (prelude//platforms:default#abc)"},
			},
		},
		{
			name:   "legacy dict dedupes",
			stdout: `{"//foo": ["//a:hipblaslt_lib", "//b:hipblaslt-lib"], "n": 3}`,
			labels: []string{"//a:hipblaslt_lib", "//b:hipblaslt-lib"},
			libs:   []LibraryMatch{{"hipblaslt", "//a:hipblaslt_lib", "//a:hipblaslt_lib"}},
		},
		{name: "empty list", stdout: "[]\n", labels: []string{}},
		{name: "empty output", stdout: "  \n", labels: []string{}},
		{name: "non-strings", stdout: `[true, null, 1, 1.0, 1e5, -0, {"a": [1]}, "x'"]`, labels: []string{"True", "None", "1", "1.0", "100000.0", "0", "{'a': [1]}", "x'"}},
		{name: "int", stdout: "42", pyType: "int"},
		{name: "float", stdout: "4.5", pyType: "float"},
		{name: "str", stdout: `"x"`, pyType: "str"},
		{name: "null", stdout: "null", pyType: "NoneType"},
		{name: "bool", stdout: "false", pyType: "bool"},
		{name: "not json", stdout: "not-json", err: "Expecting value: line 1 column 1 (char 0)"},
		{name: "extra data", stdout: "[] []", err: "Extra data: line 1 column 4 (char 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels, err := ParseLabels(tt.stdout)
			var se *ShapeError
			switch {
			case tt.pyType != "":
				if !errors.As(err, &se) || se.PyType != tt.pyType {
					t.Fatalf("err = %v, want shape %s", err, tt.pyType)
				}
				return
			case tt.err != "":
				var syn *pyjson.SyntaxError
				if !errors.As(err, &syn) || err.Error() != tt.err {
					t.Fatalf("err = %v, want %s", err, tt.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if !slices.Equal(labels, tt.labels) {
				t.Errorf("labels = %q, want %q", labels, tt.labels)
			}
			if libs := MatchLibraries(labels); !slices.Equal(libs, tt.libs) {
				t.Errorf("libs = %v, want %v", libs, tt.libs)
			}
		})
	}
}

func TestConfiguredRootTarget(t *testing.T) {
	tests := []struct {
		labels []string
		target string
		want   string
	}{
		{[]string{"root//app:trainer (prelude//platforms:default#configured)"}, "//app:trainer", "root//app:trainer (prelude//platforms:default#configured)"},
		{[]string{"root//x:y (a)", "//app:trainer (b)", "root//app:trainer (c)"}, "//app:trainer", "//app:trainer (b)"},
		// An earlier suffix match beats a later exact match.
		{[]string{"cell//app:trainer (a)", "//app:trainer (b)"}, "//app:trainer", "cell//app:trainer (a)"},
		{[]string{"root//app:trainer (a)"}, "root//app:trainer", "root//app:trainer (a)"},
		{[]string{"other//app:trainer (a)"}, "root//app:trainer", ""},
		{nil, "//x:y", ""},
	}
	for _, tt := range tests {
		got, ok := ConfiguredRootTarget(tt.labels, tt.target)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ConfiguredRootTarget(%q, %q) = %q, %v", tt.labels, tt.target, got, ok)
		}
	}
}

func TestParseLabel(t *testing.T) {
	tests := []struct {
		in   string
		want Label
		ok   bool
	}{
		{"root//:main (prelude//platforms:default#524f8da68ea2a374)", Label{"root//:main", "prelude//platforms:default#524f8da68ea2a374", ""}, true},
		{"root//toolchains:python (root//config:platform_windows#0123456789abcdef) (root//config:platform_windows_exec#fedcba9876543210)",
			Label{"root//toolchains:python", "root//config:platform_windows#0123456789abcdef", "root//config:platform_windows_exec#fedcba9876543210"}, true},
		{"root//:test (<unspecified>)", Label{"root//:test", "<unspecified>", ""}, true},
		{"root//:x (cfg:<empty>#0123456789abcdef)", Label{"root//:x", "cfg:<empty>#0123456789abcdef", ""}, true},
		{"root//:x (prelude//platforms:default#abc)", Label{}, false},
		{"root//:x", Label{}, false},
		{"root//:x  (<unspecified>)", Label{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseLabel(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseLabel(%q) = %+v, %v", tt.in, got, ok)
		}
	}
}

func TestParseExecutionPlatform(t *testing.T) {
	tests := []struct {
		name, stdout, target, want, err string
	}{
		{name: "default", target: "//app:trainer",
			stdout: "{\n  \"root//app:trainer (prelude//platforms:default#904931f735703749)\": {\n    \"buck.execution_platform\": \"prelude//platforms:default\"\n  }\n}\n",
			want:   "prelude//platforms:default"},
		{name: "legacy", target: "root//lib:file1",
			stdout: `{"root//lib:file1 (root//platforms:platform1#0123456789abcdef)": {"buck.type": "_foo_genrule", "buck.execution_platform": "<legacy_global_exec_platform>"}}`,
			want:   "<legacy_global_exec_platform>"},
		{name: "alias resolves to one key", target: "//:alias",
			stdout: `{"root//real:t (p#0123456789abcdef)": {"buck.execution_platform": "root//platforms:re"}}`, want: "root//platforms:re"},
		{name: "picks the target among several", target: "//b:b",
			stdout: `{"root//a:a (p)": {"buck.execution_platform": "x"}, "root//b:b (p)": {"buck.execution_platform": "y"}}`, want: "y"},
		{name: "none of several", target: "//c:c", stdout: `{"root//a:a (p)": {}, "root//b:b (p)": {}}`, err: "none of the 2 configured labels buck2 printed is //c:c"},
		{name: "resolution failed", target: "//a:a", stdout: `{"root//a:a (p)": {"buck.execution_platform": "<NONE>"}}`, err: "buck2 resolved no execution platform for root//a:a (p) (<NONE>: resolution failed)"},
		{name: "missing attr", target: "//a:a", stdout: `{"root//a:a (p)": {}}`, err: "the entry of root//a:a (p) has no buck.execution_platform"},
		{name: "not string", target: "//a:a", stdout: `{"root//a:a (p)": {"buck.execution_platform": 3}}`, err: "buck.execution_platform of root//a:a (p) is not a string (int)"},
		{name: "not attrs", target: "//a:a", stdout: `{"root//a:a (p)": []}`, err: "the entry of root//a:a (p) is not an attribute object"},
		{name: "array", target: "//a:a", stdout: `[]`, err: "buck2 printed JSON of unexpected shape (list)"},
		{name: "empty", target: "//a:a", stdout: "", err: "buck2 printed nothing"},
		{name: "garbage", target: "//a:a", stdout: "x", err: "buck2 printed non-JSON output (Expecting value: line 1 column 1 (char 0))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseExecutionPlatform(tt.stdout, tt.target)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("= %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func FuzzStripSuffix(f *testing.F) {
	for _, s := range []string{"root//:x (p#1)", "a (b (c)", "//x:y (a) (b)", " (", ")"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := StripSuffix(s)
		if len(got) > len(s) || !strings.Contains(s, got) {
			t.Fatalf("StripSuffix(%q) = %q is not part of the input", s, got)
		}
		if StripSuffix(got) != got && strings.HasSuffix(got, ")") == false {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}

func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{`["a (b)"]`, `{"k": ["x"]}`, "42", "", "[1, {\"a\": null}]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		labels, err := ParseLabels(s)
		var syntax *pyjson.SyntaxError
		var shape *ShapeError
		switch {
		case err == nil && labels == nil:
			t.Fatalf("ParseLabels(%q): nil labels without an error", s)
		case err != nil && !errors.As(err, &syntax) && !errors.As(err, &shape):
			t.Fatalf("ParseLabels(%q): %T %v is neither a syntax nor a shape error", s, err, err)
		case err != nil && labels != nil:
			t.Fatalf("ParseLabels(%q): labels %q with error %v", s, labels, err)
		}
		// What the callers derive from labels comes from those labels.
		seen := map[string]bool{}
		for _, m := range MatchLibraries(labels) {
			if !slices.Contains(labels, m.Configured) || m.Target != StripSuffix(m.Configured) || seen[m.Name] {
				t.Fatalf("MatchLibraries(%q): %+v", labels, m)
			}
			seen[m.Name] = true
		}
		if l, ok := ConfiguredRootTarget(labels, "//a:b"); ok && !slices.Contains(labels, l) {
			t.Fatalf("ConfiguredRootTarget(%q) = %q, %v", labels, l, ok)
		}
		// Round trip: the lines of s as labels, printed as buck2 prints
		// them (an array; a multi-query object, whose non-array values
		// are skipped), read back unchanged and in order.
		want := strings.Split(strings.ToValidUTF8(s, "\uFFFD"), "\n")
		half := len(want) / 2
		for _, doc := range []string{
			jsonOf(t, want),
			`{"//a:x": ` + jsonOf(t, want[:half]) + `, "n": 1, "//a:y": ` + jsonOf(t, want[half:]) + `}`,
		} {
			if got, err := ParseLabels(doc); err != nil || !slices.Equal(got, want) {
				t.Fatalf("ParseLabels(%q) = %q, %v; want %q", doc, got, err, want)
			}
		}
	})
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func FuzzParseLabel(f *testing.F) {
	for _, s := range []string{"root//:main (prelude//platforms:default#524f8da68ea2a374)", "root//:t (<unspecified>)", "x (a) (b)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := ParseLabel(s)
		if !ok {
			return
		}
		if StripSuffix(s) != l.Target && l.ExecConfig == "" {
			t.Fatalf("StripSuffix(%q) = %q, ParseLabel target %q", s, StripSuffix(s), l.Target)
		}
	})
}

func FuzzParseExecutionPlatform(f *testing.F) {
	f.Add(`{"root//a:a (p)": {"buck.execution_platform": "x"}}`, "//a:a")
	f.Add(`[]`, "//a:a")
	f.Fuzz(func(t *testing.T, s, target string) {
		p, err := ParseExecutionPlatform(s, target)
		if err == nil && p == "" {
			t.Fatal("empty platform without error")
		}
	})
}
