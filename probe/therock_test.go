package probe

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// TestManifestPin: pin_sha is cleaned, lower-cased and kept only as a full
// 40-hex commit id (docs/fields-process.md#therock-filesystem).
func TestManifestPin(t *testing.T) {
	const hex40 = "abcdef0123456789abcdef0123456789abcdef01"
	for in, want := range map[string]string{
		`"ABCDEF0123456789ABCDEF0123456789ABCDEF01"`:   hex40,
		`" abcdef0123456789abcdef0123456789abcdef01 "`: hex40,
		`"abc1234"`: "",
		`"abcdef0123456789abcdef0123456789abcdef012"`: "", // 41
		`"gbcdef0123456789abcdef0123456789abcdef01"`:  "",
		`1234567890123456789012345678901234567890`:    "1234567890123456789012345678901234567890",
		`null`: "", `true`: "", `[]`: "", `{}`: "", `""`: "",
	} {
		m, err := pyjson.Decode(`{"pin_sha": ` + in + `}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := deref0(manifestPin(m.(pyjson.Map[any]))); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// TestTheRockSubmodules: the spec's malformed list gives one reason with
// the three counters, the upper-case rocm-libraries pin lower-cased, and an
// unusable non-array value counts once.
func TestTheRockSubmodules(t *testing.T) {
	const m = "/opt/rocm/share/therock/therock_manifest.json"
	for _, tc := range []struct {
		name, manifest, gemm, reason string
		subs                         int
	}{
		{"spec example", `{"submodules": [{"submodule_name": "rocm-libraries", "pin_sha": "ABCDEF0123456789ABCDEF0123456789ABCDEF01"},
			{"submodule_name": "x", "pin_sha": "abc1234"}, "junk", {"pin_sha": "0123456789abcdef0123456789abcdef01234567"}]}`,
			"abcdef0123456789abcdef0123456789abcdef01",
			"therock.submodules: 1 unusable, 1 unnamed and 1 without a full 40-char pin_sha in " + m, 3},
		{"not an array", `{"submodules": {"a": 1}}`, "", "therock.submodules: 1 unusable, 0 unnamed and 0 without a full 40-char pin_sha in " + m, 0},
		{"null is no submodules", `{"submodules": null}`, "", "", 0},
		{"missing pin counts", `{"submodules": [{"submodule_name": "rocm-libraries"}]}`, "", "therock.submodules: 0 unusable, 0 unnamed and 1 without a full 40-char pin_sha in " + m, 1},
		{"last rocm-libraries wins, even null", `{"submodules": [{"submodule_name": "rocm-libraries", "pin_sha": "0123456789abcdef0123456789abcdef01234567"},
			{"submodule_name": "rocm-libraries", "pin_sha": "short"}]}`, "", "therock.submodules: 0 unusable, 0 unnamed and 1 without a full 40-char pin_sha in " + m, 2},
		{"clean", `{"submodules": [{"submodule_name": "rocm-libraries", "pin_sha": "0123456789abcdef0123456789abcdef01234567"}]}`, "0123456789abcdef0123456789abcdef01234567", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := manifestState(t, tc.manifest)
			tr := collectTheRock(s)
			if tr.block.Status != "present" || deref0(tr.block.GemmLibrariesCommit) != tc.gemm || len(tr.block.Submodules) != tc.subs {
				t.Errorf("status %s gemm %q subs %d, want present %q %d", tr.block.Status, deref0(tr.block.GemmLibrariesCommit), len(tr.block.Submodules), tc.gemm, tc.subs)
			}
			if got := strings.Join(s.reasons, "\n"); got != tc.reason {
				t.Errorf("reasons %q, want %q", got, tc.reason)
			}
		})
	}
}

// manifestState is a state over a root whose /opt/rocm has content (nil:
// no file) as its TheRock manifest.
func manifestState(t *testing.T, content any) (*state, string) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, "opt/rocm/share/therock/therock_manifest.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	switch c := content.(type) {
	case string:
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	case []byte:
		if err := os.WriteFile(p, c, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := testState(t, root)
	s.collector.rocm = func() rocmRoots { return classicRoots("/opt/rocm", "opt_rocm") }
	return s, p
}

// TestTheRockInvalid: a manifest that is there but unusable makes the block
// invalid (the absent shape otherwise) with one of the four reasons; a
// missing one is absent without a reason.
func TestTheRockInvalid(t *testing.T) {
	const m = "/opt/rocm/share/therock/therock_manifest.json"
	for _, tc := range []struct {
		name    string
		content any // string or []byte: the file; nil: none
		setup   func(t *testing.T, s *state, host string)
		reason  string // "": absent, no reason
	}{
		{"missing", nil, nil, ""},
		{"list", "[1]", nil, m + " is a JSON list, not an object"},
		{"str", `"x"`, nil, m + " is a JSON str, not an object"},
		{"int", "12", nil, m + " is a JSON int, not an object"},
		{"float", "1.5", nil, m + " is a JSON float, not an object"},
		{"bool", "true", nil, m + " is a JSON bool, not an object"},
		{"null", " null\n", nil, m + " is a JSON NoneType, not an object"},
		{"not JSON", "  {oops", nil, m + " is not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"},
		{"empty", "", nil, m + " present but empty or unreadable"},
		{"blank", " \n\t", nil, m + " present but empty or unreadable"},
		{"not UTF-8", []byte("{\"a\": \"\xff\"}"), nil, m + " present but empty or unreadable"},
		{"a directory", nil, func(t *testing.T, _ *state, host string) { os.Mkdir(host, 0o755) }, m + " present but empty or unreadable"},
		{"a dangling link", nil, func(t *testing.T, _ *state, host string) { os.Symlink("gone.json", host) }, m + " present but empty or unreadable"},
		{"lstat EACCES", nil, func(t *testing.T, s *state, _ string) {
			s.root.SetFaults(map[string]syscall.Errno{"lstat " + m: syscall.EACCES})
		}, m + " could not be checked ([Errno 13] Permission denied: '" + m + "')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, host := manifestState(t, tc.content)
			if tc.setup != nil {
				tc.setup(t, s, host)
			}
			tr := collectTheRock(s)
			wantStatus := "invalid"
			if tc.reason == "" {
				wantStatus = "absent"
			}
			b := tr.block
			if b.Status != wantStatus || b.ManifestPath != m || tr.manifest != nil || b.RocmVersion != nil || len(b.Submodules) != 0 {
				t.Errorf("block %+v manifest %v, want %s shape", b, tr.manifest, wantStatus)
			}
			want := ""
			if tc.reason != "" {
				want = "therock: " + tc.reason
			}
			if got := strings.Join(s.reasons, "\n"); got != want {
				t.Errorf("reasons %q, want %q", got, want)
			}
		})
	}
}

// FuzzTheRockManifest: any manifest text gives a block whose pins are full
// lower-case ids or null, and at most one submodules-counter reason.
func FuzzTheRockManifest(f *testing.F) {
	f.Add(`{"submodules": [{"submodule_name": "rocm-libraries", "pin_sha": "ABCDEF0123456789ABCDEF0123456789ABCDEF01"}, {"submodule_name": "x", "pin_sha": "abc1234"}, "junk", {"pin_sha": 1}]}`)
	f.Add(`[1]`)
	f.Add(`{"submodules": {"a": []}}`)
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		m, why := readManifestText(text, "/m.json")
		if m == nil {
			if why == "" || !strings.HasPrefix(why, "/m.json ") {
				t.Errorf("%q: no object and reason %q", text, why)
			}
			return
		}
		s := testState(t, root)
		b := absentTheRock("/m.json")
		manifestSubmodules(s, m, &b)
		for _, sub := range append(b.Submodules, schema.TheRockSubmodule{PinSHA: b.GemmLibrariesCommit}) {
			if sub.PinSHA != nil && !fullPin().MatchString(*sub.PinSHA) {
				t.Errorf("%q: pin %q", text, *sub.PinSHA)
			}
		}
		n := 0
		for _, r := range s.reasons {
			if strings.Contains(r, " without a full 40-char pin_sha in ") {
				n++
			}
		}
		if n > 1 {
			t.Errorf("%q: %d counter reasons", text, n)
		}
	})
}

// TestManifestStringNumbers: a number in the manifest becomes Python's
// str() of what json.loads made of it. Before pyjson.Str, "-0" stayed "-0"
// (Python: int 0, "0") and 1e400 became "Infinity" (Python: inf, "inf").
func TestManifestStringNumbers(t *testing.T) {
	for in, want := range map[string]string{"-0": "0", "1e400": "inf", "12": "12", "2.50": "2.5", "1e16": "1e+16"} {
		m, err := pyjson.Decode(`{"rocm_version": ` + in + `}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := deref0(manifestString(m.(pyjson.Map[any]), "rocm_version")); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
