package probe

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

func TestMapsFirstPaths(t *testing.T) {
	maps := strings.Join([]string{
		"7f00-7f01 r-xp 00000000 08:01 1 /old/lib/libtorch_hip.so (deleted)",
		"7f00-7f01 r-xp 00000000 08:01 1",
		"7f00-7f01 r-xp 00000000 08:01 1 [heap]",
		"7f00-7f01 r-xp 00000000 08:01 1 relative/libtorch.so",
		"7f00-7f01 r-xp 00000000 08:01 2 /site/torch/lib/libc10.so",
		"7f00-7f01 r-xp 00000000 08:01 3 /site/torch/lib/libtorch_hip.so.2",
		"7f00-7f01 r-xp 00000000 08:01 4 /other/lib/libtorch_hip.so",
		"7f00-7f01 r-xp 00000000 08:01 5   /my dir/lib/libtorch.so",
		"7f00-7f01 r-xp 00000000 08:01 6 /x/libtorch.sox",
	}, "\n")
	got := mapsFirstPaths(maps, torchNativeSonames)
	want := map[string]string{
		"libtorch_hip.so": "/site/torch/lib/libtorch_hip.so.2",
		"libc10.so":       "/site/torch/lib/libc10.so",
		"libtorch.so":     "/my dir/lib/libtorch.so",
	}
	if len(got) != len(want) {
		t.Errorf("got %q", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q want %q", k, got[k], v)
		}
	}
}

func FuzzMapsPath(f *testing.F) {
	f.Add("7f00-7f01 r-xp 00000000 08:01 1 /a b/libtorch.so")
	f.Add(" a b c d e  ")
	f.Fuzz(func(t *testing.T, line string) {
		p, ok := mapsPath(line)
		if ok && (!strings.HasPrefix(p, "/") || strings.HasSuffix(p, " (deleted)")) {
			t.Fatalf("mapsPath(%q) = %q", line, p)
		}
	})
}

func TestParseCKVersion(t *testing.T) {
	for _, tc := range []struct{ in, version, commit string }{
		{"#define CK_VERSION_MAJOR 1\n#define CK_VERSION_MINOR 2\n#define CK_VERSION_PATCH 0\n#define CK_COMMIT_ID 23d531c8ae9721ac990116751542ab63e11d27c8\n", "1.2.0", "23d531c8ae9721ac990116751542ab63e11d27c8"},
		{"#define CK_VERSION 1.2.0\n#define CK_COMMIT_ID abc1234xyz", "null", "abc1234"},
		{"#define CK_VERSION_MAJOR 1\n#define CK_VERSION_MINOR 2\n#define CK_VERSION_PATCH 3\n#define CK_VERSION_MAJOR 07\n", "07.2.3", "null"},
		{"#define\vCK_COMMIT_ID\v" + strings.Repeat("a", 45), "null", strings.Repeat("a", 40)},
		{"#define CK_COMMIT_ID abc12", "null", "null"},
	} {
		v, c := parseCKVersion(tc.in)
		if ptrV(v) != tc.version || ptrV(c) != tc.commit {
			t.Errorf("parseCKVersion(%q) = %s, %s", tc.in, ptrV(v), ptrV(c))
		}
	}
}

func TestPickAOTriton(t *testing.T) {
	for _, tc := range []struct {
		names        []string
		chosen, vers string
	}{
		{[]string{"libaotriton_v2.so", "libaotriton_v2.so.0.11.1"}, "libaotriton_v2.so.0.11.1", "0.11.1"},
		{[]string{"libaotriton_v2.so.0.10.0", "libaotriton_v2.so.0.9.0"}, "libaotriton_v2.so.0.10.0", "0.10.0"},
		{[]string{"libaotriton_v2.so", "libaotriton_v2.so.0.11.1.dbg"}, "libaotriton_v2.so", "null"},
		{[]string{"libaotriton_v2.so.1.2"}, "libaotriton_v2.so.1.2", "null"},
	} {
		c, v := pickAOTriton(tc.names)
		if c != tc.chosen || ptrV(v) != tc.vers {
			t.Errorf("pickAOTriton(%q) = %s, %s", tc.names, c, ptrV(v))
		}
	}
}

func TestParseHelperOutput(t *testing.T) {
	out := "[\n{\"interpreter\": {\"python_version\": \"3.11.2\", \"prefix\": \"/v\", \"base_prefix\": \"/usr\"}}" +
		",\n{\"begin\": \"torch:composable_kernel.pytorch_bundled\"}" +
		",\n{\"torch_site\": \"composable_kernel.pytorch_bundled\", \"outcome\": \"RuntimeError\"}" +
		",\n{\"begin\": \"torch:composable_kernel.pytorch_use_ck_sdpa\"}" +
		",\n{\"torc" // torn by a kill
	f := &pyFacts{TorchSites: map[string]string{}}
	parseHelperOutput(f, []byte(out))
	if f.outcome != "" || f.Interpreter == nil || f.Interpreter.PythonVersion != "3.11.2" {
		t.Fatalf("facts %+v", f)
	}
	if f.stage != "torch:composable_kernel.pytorch_use_ck_sdpa" {
		t.Errorf("stage %q", f.stage)
	}
	if _, exc := f.torchAt("composable_kernel.pytorch_bundled"); exc != "RuntimeError" {
		t.Errorf("site outcome %q", exc)
	}
	f.outcome = pyTimeout
	if _, exc := f.torchAt("pytorch_version"); exc != "TimeoutExpired" {
		t.Errorf("unreached site after a kill: %q", exc)
	}
	g := &pyFacts{TorchSites: map[string]string{}}
	parseHelperOutput(g, []byte("garbage\n[\n{\"done\": true}\n]\n"))
	if g.outcome != pyOK {
		t.Errorf("done not seen")
	}
	if _, exc := g.torchAt("pytorch_version"); exc != "ImportError" {
		t.Errorf("no site outcome: %q", exc)
	}
}

func FuzzParseHelperOutput(f *testing.F) {
	f.Add("[\n{\"torch\": {\"file\": 1, \"config_show\": {\"state\": \"ok\"}}}\n]")
	f.Add("[\n{\"begin\": \"torch:rocm.version\"}\n,{\"torch_site\": \"rocm.version\", \"outcome\": \"ok\"}\n,{\"done\": true}\n]")
	f.Fuzz(func(t *testing.T, s string) {
		parse := func(chunks ...string) *pyFacts {
			p := &pyFacts{TorchSites: map[string]string{}}
			for _, c := range chunks {
				parseHelperOutput(p, []byte(c))
			}
			return p
		}
		// Line by line: the output read in two pieces cut at a line end,
		// or followed by a torn line, says what it says whole.
		whole := parse(s)
		if whole.outcome != "" && whole.outcome != pyOK {
			t.Fatalf("outcome %q", whole.outcome)
		}
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			if cut := parse(s[:i], s[i+1:]); !reflect.DeepEqual(cut, whole) {
				t.Fatalf("%q read in two pieces: %+v, whole %+v", s, cut, whole)
			}
		}
		if torn := parse(s + "\n,{\"done\": tr"); !reflect.DeepEqual(torn, whole) {
			t.Fatalf("%q then a torn line: %+v, alone %+v", s, torn, whole)
		}
		// Round trip: the lines of s as the helper's steps, written as the
		// helper writes them; a kill after any element leaves the last
		// step begun and the sites reported so far.
		steps := strings.Split(strings.ToValidUTF8(s, "\uFFFD"), "\n")
		var out strings.Builder
		for i, step := range steps {
			begin, _ := json.Marshal(map[string]string{"begin": "torch:" + step})
			site, _ := json.Marshal(map[string]string{"torch_site": step, "outcome": "ok"})
			out.WriteString(map[bool]string{true: "[\n", false: ",\n"}[i == 0] + string(begin) + "\n," + string(site))
			p := parse(out.String())
			if p.outcome != "" || p.stage != "torch:"+step || len(p.TorchSites) > i+1 {
				t.Fatalf("killed after step %d of %q: outcome %q stage %q sites %q", i, steps, p.outcome, p.stage, p.TorchSites)
			}
			for _, done := range steps[:i+1] {
				if p.TorchSites[done] != "ok" {
					t.Fatalf("killed after step %d of %q: site %q lost: %q", i, steps, done, p.TorchSites)
				}
			}
		}
		out.WriteString(",\n{\"done\": true}\n]\n")
		if p := parse(out.String()); p.outcome != pyOK || p.stage != "" {
			t.Fatalf("complete output of %q: outcome %q stage %q", steps, p.outcome, p.stage)
		}
	})
}

func FuzzParseCKVersion(f *testing.F) {
	f.Add("#define CK_VERSION_MAJOR 1\n#define CK_VERSION_MINOR 2\n#define CK_VERSION_PATCH 0\n#define CK_COMMIT_ID abc1234\n")
	f.Fuzz(func(t *testing.T, s string) {
		v, c := parseCKVersion(s)
		if v != nil && strings.Count(*v, ".") != 2 {
			t.Fatalf("version %q", *v)
		}
		if c != nil && (len(*c) < 7 || len(*c) > 40) {
			t.Fatalf("commit %q", *c)
		}
	})
}

// TestParseHelperOutputPythonValues: the helper's stream is read as
// json.loads reads it. A path that is not UTF-8 comes back as its bytes
// (encoding/json made each \udcXX escape U+FFFD), and NaN, which the
// helper writes for a float NaN, is a value (encoding/json refused the
// whole element, losing the torch facts).
func TestParseHelperOutputPythonValues(t *testing.T) {
	out := "[\n{\"interpreter\": {\"python_version\": \"3.11.2\", \"prefix\": \"/v\\udcff\", \"base_prefix\": \"/usr\"}}" +
		",\n{\"torch\": {\"version\": \"2.5.0\", \"version_module\": {\"debug\": NaN}}}" +
		",\n{\"done\": true}\n]\n"
	f := &pyFacts{TorchSites: map[string]string{}}
	parseHelperOutput(f, []byte(out))
	if f.Interpreter == nil || f.Interpreter.Prefix != "/v\xff" {
		t.Fatalf("interpreter %+v", f.Interpreter)
	}
	if f.Torch == nil || f.Torch.VersionModule == nil || f.Torch.VersionModule.Debug != pyjson.Number("NaN") {
		t.Fatalf("torch %+v", f.Torch)
	}
	if f.outcome != pyOK {
		t.Errorf("outcome %q", f.outcome)
	}
}
