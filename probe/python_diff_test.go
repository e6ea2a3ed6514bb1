package probe

import (
	"encoding/json"
	"math/rand"
	"os/exec"
	"strings"
	"testing"
)

// TestDifferentialRegex compares the hand-written parsers with the Python
// regular expressions they replace (pytorch_build.flags, extract_commit;
// docs/python.md) on random inputs, using the machine's python3.
func TestDifferentialRegex(t *testing.T) {
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
		if m := parseBuildSettings(s); m != nil {
			pairs := [][2]string{}
			for _, e := range m {
				pairs = append(pairs, [2]string{e.Key, e.Value})
			}
			gs = pairs
		}
		gd := [][2]any{}
		for _, e := range parseCXXDefines(s) {
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
