package probe

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/internal/testdoc"
)

// TestDifferentialRegex compares the hand-written parsers with the Python
// regular expressions they replace (pytorch_build.flags, extract_commit;
// docs/python.md) on random inputs, using the machine's python3.
func TestDifferentialRegex(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"A", "B", "_", "K", "9", "=", ",", " ", "\n", "\t", "a", "x", "-D", "Build settings:", "+", ".", "git", "g", "0", "f", "c", "é", "\u2003", "\v", "1"}
	var inputs []string
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		if i%2 == 0 {
			b.WriteString("Build settings: ")
		}
		for n := rng.Intn(24); n > 0; n-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	hexish := "0123456789abcdefABCDEFgz_.+-é"
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		b.WriteString([]string{"1.2", "3.5.1+rocm7.2.1", "0.1.11.dev32", "", "x"}[rng.Intn(5)])
		b.WriteString([]string{"+", ".", "+12.", ".3.", "+x."}[rng.Intn(5)])
		b.WriteString([]string{"git", "g", "GIT", "G", "gi"}[rng.Intn(5)])
		for n := 3 + rng.Intn(45); n > 0; n-- {
			if rng.Intn(8) == 0 {
				b.WriteByte(hexish[rng.Intn(len(hexish))])
			} else {
				b.WriteByte(hexish[rng.Intn(16)])
			}
		}
		inputs = append(inputs, b.String())
	}
	script := `import json, re, sys
_A = re.compile(r"[+.](?:\d+\.)?git([0-9a-f]{7,40})\b", re.I)
_B = re.compile(r"[+.](?:\d+\.)?g([0-9a-f]{7,40})\b", re.I)
def commit(v):
    for p in (_A, _B):
        m = p.search(v)
        if m:
            return m.group(1).lower()
    return None
def settings(text):
    m = re.search(r"Build settings:\s*(.*)", text, re.S)
    if not m or not m.group(1):
        return None
    out = {}
    for p in re.finditer(r"([A-Z_][A-Z0-9_]*)=(.*?)(?=,\s+[A-Z_][A-Z0-9_]*=|\s*$)", m.group(1), re.S):
        out[p.group(1)] = p.group(2).strip().rstrip(",").strip()
    return [[k, v] for k, v in out.items()] or None
def defines(text):
    out = {}
    for m in re.finditer(r"-D([A-Za-z_][A-Za-z0-9_]*)(?:=([^\s,]+))?", text):
        out[m.group(1)] = m.group(2)
    return [[k, out[k]] for k in sorted(out)]
res = []
for s in json.load(sys.stdin):
    res.append([settings(s), defines(s), commit(s)])
json.dump(res, sys.stdout)
`
	in, _ := json.Marshal(inputs)
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want [][3]json.RawMessage
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, s := range inputs {
		var gs any
		if m := source.ParseBuildSettings(s); m != nil {
			pairs := [][2]string{}
			for _, e := range m {
				pairs = append(pairs, [2]string{e.Key, e.Value})
			}
			gs = pairs
		}
		gd := [][2]any{}
		for _, e := range source.ParseCXXDefines(s) {
			var v any
			if e.Value != nil {
				v = *e.Value
			}
			gd = append(gd, [2]any{e.Key, v})
		}
		var gc any
		if c := extractCommit(s); c != nil {
			gc = *c
		}
		for k, got := range []any{gs, gd, gc} {
			g, _ := json.Marshal(got)
			var a, b any
			_ = json.Unmarshal(g, &a)
			_ = json.Unmarshal(want[i][k], &b)
			ga, _ := json.Marshal(a)
			wb, _ := json.Marshal(b)
			if string(ga) != string(wb) {
				t.Errorf("input %q part %d: go %s, python %s", s, k, ga, wb)
			}
		}
	}
}

// TestDifferentialMarker compares the version-marker decoding (readMarker,
// docs/rocm-roots.md#version-markers) with Python's: the first 4096 bytes
// through an incremental UTF-8 decoder, final only when the read was not
// cut, then str.strip(); a decode error is no value. Inputs sit around the
// limit, with multibyte sequences, invalid bytes and Unicode whitespace.
func TestDifferentialMarker(t *testing.T) {
	t.Parallel()
	python := needPython(t)
	rng := rand.New(rand.NewSource(2))
	pieces := []string{"7", ".", " ", "\r", "\n", "\t", "\x0b", "\x1c", "\xc2\x85", "\xc2\xa0", "\xe3\x80\x80", "é", "\xe2\x82\xac",
		"\xf0\x9f\x98\x80", "\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x80", "\xe0\x80", "\xed\xa0\x80", "\x00"}
	var inputs [][]byte
	for i := 0; i < 600; i++ {
		b := []byte{} // not nil: nil marshals as null
		if i%3 != 0 {
			b = append(b, strings.Repeat([]string{"7", " "}[i%2], 4090+rng.Intn(4))...)
		}
		for n := rng.Intn(8); n > 0; n-- {
			b = append(b, pieces[rng.Intn(len(pieces))]...)
		}
		if len(b) > machine.MarkerLimit+1 {
			b = b[:machine.MarkerLimit+1] // what readMarker reads at most
		}
		inputs = append(inputs, b)
	}
	script := `import base64, codecs, json, sys
res = []
for s in json.load(sys.stdin):
    raw = base64.b64decode(s)
    cut = len(raw) > 4096
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(raw[:4096], final=not cut)
    except UnicodeDecodeError:
        res.append(None)
        continue
    res.append(text.strip() or None)
json.dump(res, sys.stdout)
`
	in, _ := json.Marshal(inputs) // []byte marshals as base64
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var want []*string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for i, b := range inputs {
		if len(b) > machine.MarkerLimit && bytes.HasSuffix(b[:machine.MarkerLimit-1], []byte{0xed}) && b[machine.MarkerLimit-1] >= 0xa0 && b[machine.MarkerLimit-1] <= 0xbf {
			// CPython's incremental decoder takes a cut "\xed\xa0".."\xed\xbf"
			// (the start of a UTF-16 surrogate, never valid UTF-8) as
			// incomplete; the marker rule drops only a sequence that could
			// still complete (docs/rocm-roots.md#version-markers).
			continue
		}
		compared++
		got := machine.MarkerText(b)
		if (got == nil) != (want[i] == nil) || got != nil && *got != *want[i] {
			t.Errorf("input %q: go %q, python %q", b[max(0, len(b)-12):], golden.OrNull(got), golden.OrNull(want[i]))
		}
	}
	if compared < 500 {
		t.Errorf("only %d inputs compared", compared)
	}
}

func anyV(v any) string { return pyjson.Str(v) }

func TestProjectBuildFlags(t *testing.T) {
	settings := source.ParseBuildSettings(testdoc.TorchConfigShow(t))
	cxx, _ := settings.Get("CXX_FLAGS")
	got := testdoc.MapText(projectBuildFlags(settings, source.ParseCXXDefines(cxx)), anyV)
	want := "USE_FLASH_ATTENTION=None;USE_ROCM_CK_SDPA=True;USE_AOTRITON=None;USE_MEM_EFF_ATTENTION=None;DISABLE_AOTRITON=None;" +
		"USE_ROCM=True;USE_CUDA=False;USE_CUDNN=False;USE_MIOPEN=None;USE_FBGEMM=True;USE_FBGEMM_GENAI=None;USE_NCCL=True;" +
		"USE_MKL=True;USE_MKLDNN=True;USE_OPENMP=True;USE_KINETO=True;BUILD_TYPE=Release;"
	if got != want {
		t.Errorf("build_flags\n got %s\nwant %s", got, want)
	}
	get := func(s pyjson.Map[string], d pyjson.Map[*string], k string) any {
		v, _ := projectBuildFlags(s, d).Get(k)
		return v
	}
	set := func(kv ...string) pyjson.Map[string] {
		var m pyjson.Map[string]
		for i := 0; i < len(kv); i += 2 {
			m.Set(kv[i], kv[i+1])
		}
		return m
	}
	if v := get(set("CAFFE2_USE_MIOPEN", "ON"), nil, "USE_MIOPEN"); v != true {
		t.Errorf("CAFFE2_USE_MIOPEN=ON: %v", v)
	}
	if v := get(set("USE_MIOPEN", "ON", "CAFFE2_USE_MIOPEN", "OFF"), nil, "USE_MIOPEN"); v != true {
		t.Errorf("USE_MIOPEN=ON, CAFFE2=OFF: %v", v)
	}
	if v := get(set("CAFFE2_USE_MIOPEN", "OFF"), source.ParseCXXDefines("-DUSE_MIOPEN"), "USE_MIOPEN"); v != false {
		t.Errorf("settings beat defines: %v", v)
	}
	if v := get(nil, source.ParseCXXDefines("-DUSE_AOTRITON=ON"), "USE_AOTRITON"); v != true {
		t.Errorf("define USE_AOTRITON=ON: %v", v)
	}
	if v := get(set("BUILD_TYPE", " release,"), nil, "BUILD_TYPE"); v != " release," {
		t.Errorf("raw kept: %q", v)
	}
	if v := get(set("USE_CUDA", " true,"), nil, "USE_CUDA"); v != true {
		t.Errorf("coerce: %v", v)
	}
}
