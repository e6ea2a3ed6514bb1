package buck

import (
	"slices"
	"strings"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

func TestFingerprintVectors(t *testing.T) {
	// docs/buck2.md#context-fingerprint.
	tests := []struct {
		name      string
		argv      []string
		confirmed bool
		want      string
	}{
		{"unspecified", nil, false, "sha256:6d7aca0beec2911cea10bdf5b409157861322cd6d07a06864c46ec4c16958d0e"},
		{"default confirmed", []string{}, true, "sha256:8a7386fb9a191810ec0f4bc9fa17e2621fc9779c29de846562c423516e3ae0fe"},
		{"short", []string{"@root//mode/debug", "-c", "build.profile=debug", "-m", "//constraints:linux"}, false, "sha256:78f82c4abe6243e607181479268702f3ed09ebdef83abb0d1dd7b64a988f6c25"},
		{"full", []string{"@root//mode/debug", "-c", "build.profile=debug", "@root//mode/gpu", "-c", "scheduler.policy=local", "-m", "//constraints:linux", "-m", "//constraints:gfx"}, false, "sha256:28ec3392529ca88f6885d9bfe2efc2d8c535f3d96bb17f17d4bbe05123ef6731"},
		{"raw utf-8", []string{"-c", "k=v<&>é\u2028"}, false, "sha256:13b76d8f880df0fd94d8ca60eded5d0936cea35f0c667cc5896567f9299219ac"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fingerprint(tt.argv, tt.confirmed); got != tt.want {
				t.Errorf("Fingerprint = %s, want %s", got, tt.want)
			}
		})
	}
}

func mustOptions(t *testing.T, raws ...string) []Option {
	t.Helper()
	var out []Option
	for _, r := range raws {
		o, err := ParseOption(r)
		if err != nil {
			t.Fatalf("ParseOption(%q): %v", r, err)
		}
		out = append(out, o)
	}
	return out
}

func TestFullRequestExample(t *testing.T) {
	// The Python probe's full request example: ordered options, their argv
	// and fingerprint.
	ordered := mustOptions(t, "mode=root//mode/debug", "config=build.profile=debug", "mode=root//mode/gpu",
		"config=scheduler.policy=local", "modifier=//constraints:linux", "modifier=//constraints:gfx")
	c, err := NewContext(ordered, nil, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	argv := DepsArgv("/usr/bin/buck2", c, "//app:trainer")
	want := "/usr/bin/buck2 cquery @root//mode/debug -c build.profile=debug @root//mode/gpu -c scheduler.policy=local -m //constraints:linux -m //constraints:gfx deps(%s) //app:trainer --json"
	if got := strings.Join(argv, " "); got != want {
		t.Errorf("argv\n got %s\nwant %s", got, want)
	}
	checks := []struct {
		name      string
		got, want []string
	}{
		{"mode_files", c.ModeFiles(), []string{"root//mode/debug", "root//mode/gpu"}},
		{"config_keys", c.ConfigKeys(), []string{"build.profile", "scheduler.policy"}},
		{"modifiers", c.Modifiers(), []string{"//constraints:linux", "//constraints:gfx"}},
		{"option_order", c.OptionOrder(), []string{"mode", "config", "mode", "config", "modifier", "modifier"}},
	}
	for _, ch := range checks {
		if !slices.Equal(ch.got, ch.want) {
			t.Errorf("%s = %q, want %q", ch.name, ch.got, ch.want)
		}
	}
	if c.Source() != "explicit" {
		t.Errorf("source %s", c.Source())
	}
	if got := c.Fingerprint(); got != "sha256:28ec3392529ca88f6885d9bfe2efc2d8c535f3d96bb17f17d4bbe05123ef6731" {
		t.Errorf("fingerprint %s", got)
	}

	g, err := NewContext(nil, []string{"root//mode/debug", "@root//mode/gpu"}, []string{"build.profile=debug", "scheduler.policy=local"},
		[]string{"//constraints:linux", "//constraints:gfx"}, false)
	if err != nil {
		t.Fatal(err)
	}
	wantG := "@root//mode/debug @root//mode/gpu -c build.profile=debug -c scheduler.policy=local -m //constraints:linux -m //constraints:gfx"
	if got := strings.Join(g.Args(), " "); got != wantG {
		t.Errorf("grouped argv %s", got)
	}
	if !slices.Equal(g.OptionOrder(), []string{"mode", "mode", "config", "config", "modifier", "modifier"}) {
		t.Errorf("grouped order %q", g.OptionOrder())
	}
	if g.Fingerprint() == c.Fingerprint() {
		t.Error("grouped and ordered spellings with different argv share a fingerprint")
	}
	if (Context{}).Source() != "unspecified" || (Context{DefaultConfirmed: true}).Source() != "default_confirmed" {
		t.Error("sources")
	}
}

func TestQueryTargetIsOneElement(t *testing.T) {
	target := "//app:trainer) union deps(//other:target"
	for _, argv := range [][]string{DepsArgv("buck2", Context{}, target), ExecutionPlatformArgv("buck2", Context{}, target)} {
		n := 0
		for _, a := range argv {
			if strings.Contains(a, "union") {
				n++
				if a != target {
					t.Errorf("target interpolated into %q", a)
				}
			}
		}
		if n != 1 {
			t.Errorf("target appears %d times in %q", n, argv)
		}
	}
	argv := DepsArgv("buck2", Context{}, target)
	if !slices.Equal(argv[len(argv)-3:], []string{"deps(%s)", target, "--json"}) {
		t.Errorf("argv tail %q", argv)
	}
}

func TestParseOption(t *testing.T) {
	tests := []struct {
		raw  string
		want Option
		err  string
	}{
		{raw: "mode=@root//mode/x", want: Option{Mode, "root//mode/x"}},
		{raw: "mode=@@x", want: Option{Mode, "@x"}},
		{raw: "config=a.b=", want: Option{Config, "a.b="}},
		{raw: "config= k =v", want: Option{Config, " k =v"}},
		{raw: "modifier=//c:linux", want: Option{Modifier, "//c:linux"}},
		{raw: "mode", err: "Buck options must use mode=VALUE, config=KEY=VALUE, or modifier=VALUE"},
		{raw: "bogus=x", err: "Buck options must use mode=VALUE, config=KEY=VALUE, or modifier=VALUE"},
		{raw: "Mode=x", err: "Buck options must use mode=VALUE, config=KEY=VALUE, or modifier=VALUE"},
		{raw: "mode=", err: "Buck option values must be non-empty and contain no NUL"},
		{raw: "modifier=a\x00b", err: "Buck option values must be non-empty and contain no NUL"},
		{raw: "mode=@", err: "Buck mode option must name a file after '@'"},
		{raw: "config=novalue", err: "Buck config options must use config=KEY=VALUE"},
		{raw: "config= \t=v", err: "Buck config options must use config=KEY=VALUE"},
	}
	for _, tt := range tests {
		got, err := ParseOption(tt.raw)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseOption(%q) err = %v, want %s", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseOption(%q) = %v, %v; want %v", tt.raw, got, err, tt.want)
		}
	}
}

func TestNewContextErrors(t *testing.T) {
	tests := []struct {
		name              string
		ordered           []Option
		modes, cfgs, mods []string
		confirmed         bool
		err               string
	}{
		{name: "mixed", ordered: []Option{{Mode, "x"}}, modes: []string{"y"}, err: ErrMixedStyles.Error()},
		{name: "default with inputs", cfgs: []string{"a=b"}, confirmed: true, err: ErrDefaultWithInputs.Error()},
		{name: "empty modifier after bad mode order", modes: []string{"@"}, mods: []string{""}, err: "Buck modifier values must be non-empty strings"},
		{name: "empty config", cfgs: []string{""}, err: "Buck config override values must be non-empty strings"},
		{name: "nul mode", modes: []string{"a\x00"}, err: "Buck mode file values must not contain NUL bytes"},
		{name: "nul modifier", mods: []string{"a\x00"}, err: "Buck modifier values must not contain NUL bytes"},
		{name: "bare at", modes: []string{"@"}, err: "Buck mode file values must name a file after '@'"},
		{name: "no equals", cfgs: []string{"abc"}, err: "Buck config overrides must use KEY=VALUE with a non-empty key"},
		{name: "blank key", cfgs: []string{"  =v"}, err: "Buck config overrides must use KEY=VALUE with a non-empty key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewContext(tt.ordered, tt.modes, tt.cfgs, tt.mods, tt.confirmed)
			if err == nil || err.Error() != tt.err {
				t.Errorf("err = %v, want %s", err, tt.err)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	overrides := []string{"service.token=private-placeholder", "a=b", "a=bc"}
	got := Redact("invalid service.token=private-placeholder; a=bc and a=b", overrides)
	want := "invalid service.token=<redacted>; a=<redacted> and a=<redacted>"
	if got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	// A value echoed without its key is removed too when it is long
	// enough to be a credential; short ones stay (they would rewrite
	// unrelated words), as do partial matches.
	got = Redact("rejected private-placeholder (not a b) 'private-placeholde'", overrides)
	want = "rejected <redacted> (not a b) 'private-placeholde'"
	if got != want {
		t.Errorf("Redact (bare) = %q, want %q", got, want)
	}
	if got := Redact("x <redacted> y", []string{"k=<redacted>"}); got != "x <redacted> y" {
		t.Errorf("Redact of the marker itself = %q", got)
	}
	argv := RedactArgv([]string{"buck2", "cquery", "@m", "-c", "k.x=secret", "--config", "y=z", "--config=q=r", "-m", "a=b", "-c"})
	wantArgv := []string{"buck2", "cquery", "@m", "-c", "k.x=<redacted>", "--config", "y=<redacted>", "--config=q=<redacted>", "-m", "a=b", "-c"}
	if !slices.Equal(argv, wantArgv) {
		t.Errorf("RedactArgv = %q", argv)
	}
}

func FuzzParseOption(f *testing.F) {
	for _, s := range []string{"mode=@x", "config=a=b", "modifier=m", "x", "config= =", "mode=@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		o, err := ParseOption(raw)
		if err != nil {
			return
		}
		c, err := NewContext([]Option{o}, nil, nil, nil, false)
		if err != nil {
			t.Fatalf("parsed option rejected by NewContext: %v", err)
		}
		if len(c.Args()) == 0 || !strings.HasPrefix(c.Fingerprint(), "sha256:") {
			t.Fatalf("bad context from %q", raw)
		}
		for _, a := range RedactArgv(c.Args()) {
			if o.Type == Config && strings.Contains(a, o.Value) && !strings.HasSuffix(o.Value, "=") {
				t.Fatalf("config value survives redaction: %q", a)
			}
		}
	})
}

// TestRedactForms: a value is redacted in every form it can take on the
// way into a reason: as given, after universal newlines, decoded lossily
// when it is not UTF-8, and escaped as Rust's Debug, JSON and Python's
// repr() quote it; KEY=VALUE and the bare value alike.
func TestRedactForms(t *testing.T) {
	for _, tc := range []struct{ name, value, text, want string }{
		{"crlf normalised", "Ab1\r\nZq9xy", "-c s.k=Ab1\nZq9xy and Ab1\nZq9xy", "-c s.k=<redacted> and <redacted>"},
		{"lone cr normalised", "Ab1\rZq9xy", "s.k=Ab1\nZq9xy|Ab1\nZq9xy", "s.k=<redacted>|<redacted>"},
		{"raw crlf", "Ab1\r\nZq9xy", "s.k=Ab1\r\nZq9xy|Ab1\r\nZq9xy", "s.k=<redacted>|<redacted>"},
		{"rust debug", "Ab1\r\n\tZ\"q9\x1bxy", `"s.k=Ab1\r\n\tZ\"q9\u{1b}xy" "Ab1\r\n\tZ\"q9\u{1b}xy"`, `"s.k=<redacted>" "<redacted>"`},
		{"json", "Ab1\r\n\tZ\"q9\x1bxy", `"s.k=Ab1\r\n\tZ\"q9\u001bxy" "Ab1\r\n\tZ\"q9\u001bxy"`, `"s.k=<redacted>" "<redacted>"`},
		{"python repr", "Ab1\r\n\tZq9\xffxy", `'s.k=Ab1\r\n\tZq9\udcffxy' 'Ab1\r\n\tZq9\udcffxy'`, `'s.k=<redacted>' '<redacted>'`},
		{"lossy, maximal subparts", "Ab1\xff\xfeZq9\xe2\x82xy", "s.k=Ab1\ufffd\ufffdZq9\ufffdxy Ab1\ufffd\ufffdZq9\ufffdxy", "s.k=<redacted> <redacted>"},
		{"lossy then normalised", "Ab1\xff\r\nZq9xy", "Ab1\ufffd\nZq9xy", "<redacted>"},
		{"tabs as given", "\tAb1\tZq9xy\t", "v:\tAb1\tZq9xy\t.", "v:<redacted>."},
		{"short value: KEY=VALUE only", "a\r\nb", "s.k=a\nb a\nb", "s.k=<redacted> a\nb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Redact(tc.text, []string{"s.k=" + tc.value}); got != tc.want {
				t.Errorf("Redact(%q)\n= %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

// FuzzRedact: whatever the value and the text around it, no form of a
// config value (buck.Forms) that Redact was given survives, whole or as
// KEY=VALUE. Values holding the marker's characters are left out: the
// marker itself could then spell a form.
func FuzzRedact(f *testing.F) {
	f.Add("Ab1\r\nZq9xy", "error: ", " rejected\r\n", uint8(0))
	f.Add("\tTok\xffen\t", "", "", uint8(3))
	f.Add("a\rb\"c\\d\x1bef", "'", "'", uint8(5))
	f.Fuzz(func(t *testing.T, value, before, after string, pick uint8) {
		if len(value) < MinBareRedact || strings.ContainsAny(value, "<>=") || strings.Contains(before+after, "<redacted>") {
			return
		}
		override := "s.k=" + value
		forms := Forms(value)
		form := forms[int(pick)%len(forms)]
		for _, text := range []string{before + form + after, before + "s.k=" + form + after} {
			got := Redact(text, []string{override})
			for _, f := range forms {
				if strings.Contains(got, f) && !strings.Contains(before+after, f) {
					t.Fatalf("Redact(%q) = %q still holds the form %q of %q", text, got, f, value)
				}
			}
		}
	})
}
