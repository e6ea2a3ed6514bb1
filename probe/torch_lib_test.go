package probe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
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

// countLinesContaining is the whole-text rule the streaming lineCounter
// must agree with: the lines of text (Python splitlines) that contain sub.
func countLinesContaining(text, sub string) int {
	n := 0
	for _, l := range pyfmt.Splitlines(text) {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// streamCounts feeds text to a lineCounter in pieces of the given sizes
// (cycled) and returns its counts.
func streamCounts(text string, sizes []int) (map[string]int, bool) {
	c := newLineCounter(symbolMarkers)
	b := []byte(text)
	for i := 0; len(b) > 0; i++ {
		n := min(max(sizes[i%len(sizes)], 1), len(b))
		c.Write(b[:n])
		b = b[n:]
	}
	return c.finish()
}

func checkStream(t *testing.T, text string, sizes []int) {
	t.Helper()
	got, ok := streamCounts(text, sizes)
	if ok != utf8.ValidString(text) {
		t.Fatalf("%q in pieces %v: UTF-8 valid = %v, want %v", text, sizes, ok, !ok)
	}
	if !ok {
		return
	}
	for _, m := range symbolMarkers {
		if want := countLinesContaining(text, m); got[m] != want {
			t.Errorf("%q in pieces %v: %s counted %d, want %d", text, sizes, m, got[m], want)
		}
	}
}

func TestLineCounterMatchesWholeText(t *testing.T) {
	texts := []string{
		"",
		"ck::a\nck::b\nother\n",
		"ck::a ck::b\n", // one line, counted once
		"ck::x\r\nck::y\rck::z\vck::w\fck::q\x1cck::r\x1dck::s\x1eck::t",
		"ck::a\u0085ck::b\u2028ck::c\u2029ck::d\u2027",
		"pytorch_flash::f ck_tile::FmhaFwdKernel aiter::x\nmha_fwd_ck mha_fwd_aot",
		"é ck::ü\n\u2028\u2028aotriton::v2",
		"ck:\n:x",            // a break inside a would-be marker
		"\xff ck::bad utf-8", // not UTF-8: no dump
		"ck::\xe2\x80",       // cut sequence at the end
	}
	for _, text := range texts {
		for _, sizes := range [][]int{{1 << 20}, {1}, {2}, {3}, {5, 1, 7}} {
			checkStream(t, text, sizes)
		}
	}
}

func FuzzLineCounter(f *testing.F) {
	f.Add("ck::a\nck::b\r\n\u2028ck_tile::FmhaBwd", 1, 3)
	f.Add("\xc2\x85ck::", 2, 1)
	f.Fuzz(func(t *testing.T, text string, a, b int) {
		checkStream(t, text, []int{a % 17, b % 17})
	})
}

func TestUTF8Stream(t *testing.T) {
	for _, tc := range []struct {
		pieces []string
		ok     bool
	}{
		{[]string{"ab", "c"}, true},
		{[]string{"\xe2", "\x82", "\xac"}, true},
		{[]string{"a\xf0\x9f", "\x98\x80b"}, true},
		{[]string{"\xe2\x82"}, false}, // cut at the end
		{[]string{"\xe2", "A"}, false},
		{[]string{"\xff"}, false},
		{[]string{"\xed\xa0\x80"}, false}, // surrogate
		{[]string{"\xef\xbf\xbd"}, true},  // U+FFFD itself is valid
	} {
		var u utf8Stream
		for _, p := range tc.pieces {
			u.write([]byte(p))
		}
		if u.ok() != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.pieces, u.ok(), tc.ok)
		}
	}
}

// dumpWith runs dumpTorchSymbols with fake nm and c++filt scripts.
func dumpWith(t *testing.T, nm, cxxfilt string) (symbolDump, *state, string) {
	t.Helper()
	dir := t.TempDir()
	testtree.Files(t, dir, map[string]string{
		"torch/__init__.py":         "",
		"torch/lib/libtorch_hip.so": "\x7fELF",
	})
	bin := filepath.Join(dir, "bin")
	lib := filepath.Join(dir, "torch/lib/libtorch_hip.so")
	for name, body := range map[string]string{
		"nm":      "#!/bin/sh\n[ \"$1 $2 $3\" = \"-D --defined-only " + lib + "\" ] || exit 99\n" + nm,
		"c++filt": "#!/bin/sh\n[ $# = 0 ] || exit 99\n" + cxxfilt,
	} {
		testtree.Files(t, bin, map[string]string{name: body})
		os.Chmod(filepath.Join(bin, name), 0o755)
	}
	s := &state{collector: newCollector(context.Background(), Options{Now: fixedNow, Seams: machine.Seams{Cwd: "/", Path: hermeticPath(t, bin)}})}
	tt := &pyTorch{File: filepath.Join(dir, "torch/__init__.py"), VersionModule: &pyTorchVersionMod{HIP: "7.2"}}
	return dumpTorchSymbols(s, "P", tt), s, lib
}

func TestDumpTorchSymbolsPipeline(t *testing.T) {
	t.Parallel()
	const symbols = `printf '0 T ck::a\n0 T ck::b aiter::c\n0 T pytorch_flash::f\n'`
	t.Run("counts", func(t *testing.T) {
		d, s, _ := dumpWith(t, symbols, "exec cat")
		if n, _ := d.count("ck::"); n != 2 || len(s.reasons) != 0 {
			t.Errorf("ck:: %d, reasons %q", n, s.reasons)
		}
		if n, _ := d.count("aiter::"); n != 1 {
			t.Errorf("aiter:: %d", n)
		}
		if len(s.commands) != 2 || s.commands[0].StdoutBytes != 50 || s.commands[1].StdoutBytes != 50 {
			t.Errorf("streamed bytes not recorded: %+v", s.commands)
		}
	})
	t.Run("nm fails: its reason, no dump", func(t *testing.T) {
		d, s, lib := dumpWith(t, symbols+"; exit 3", "exec cat")
		if d.counts != nil || strings.Join(s.reasons, "|") != "P: nm exited 3 on "+lib {
			t.Errorf("dump %v, reasons %q", d.counts, s.reasons)
		}
	})
	t.Run("nm prints non-UTF-8: no dump, no reason", func(t *testing.T) {
		d, s, _ := dumpWith(t, `printf '0 T ck::\377\n'`, "exec cat")
		if d.counts != nil || len(s.reasons) != 0 {
			t.Errorf("dump %v, reasons %q", d.counts, s.reasons)
		}
	})
	t.Run("c++filt fails", func(t *testing.T) {
		d, s, _ := dumpWith(t, symbols, "cat >/dev/null; exit 4")
		if d.counts != nil || strings.Join(s.reasons, "|") != "P: c++filt exited 4" {
			t.Errorf("dump %v, reasons %q", d.counts, s.reasons)
		}
	})
	t.Run("c++filt quits without reading: nm is still drained", func(t *testing.T) {
		d, s, _ := dumpWith(t, "head -c 50000000 /dev/zero", "exit 5")
		if d.counts != nil || strings.Join(s.reasons, "|") != "P: c++filt exited 5" {
			t.Errorf("dump %v, reasons %q", d.counts, s.reasons)
		}
		for _, c := range s.commands {
			if filepath.Base(c.Argv[0]) == "nm" && (c.ExitStatus == nil || *c.ExitStatus != 0 || c.StdoutBytes != 50000000) {
				t.Errorf("nm not drained to its end: %+v", c)
			}
		}
	})
	t.Run("a large dump streams through", func(t *testing.T) {
		d, s, _ := dumpWith(t, `yes '0 T ck::x' | head -n 3000000`, "exec cat")
		if n, _ := d.count("ck::"); n != 3000000 || len(s.reasons) != 0 {
			t.Errorf("ck:: %d, reasons %q", n, s.reasons)
		}
	})
}
