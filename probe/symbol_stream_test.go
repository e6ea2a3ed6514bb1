package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
)

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
	writeFiles(t, dir, map[string]string{
		"torch/__init__.py":         "",
		"torch/lib/libtorch_hip.so": "\x7fELF",
	})
	bin := filepath.Join(dir, "bin")
	lib := filepath.Join(dir, "torch/lib/libtorch_hip.so")
	for name, body := range map[string]string{
		"nm":      "#!/bin/sh\n[ \"$1 $2 $3\" = \"-D --defined-only " + lib + "\" ] || exit 99\n" + nm,
		"c++filt": "#!/bin/sh\n[ $# = 0 ] || exit 99\n" + cxxfilt,
	} {
		writeFiles(t, bin, map[string]string{name: body})
		os.Chmod(filepath.Join(bin, name), 0o755)
	}
	s := &state{collector: newCollector(context.Background(), Options{Now: fixedNow, Cwd: "/",
		Path: hermeticPath(t, bin)})}
	tt := &pyTorch{File: filepath.Join(dir, "torch/__init__.py"), VersionModule: &pyTorchVersionMod{HIP: "7.2"}}
	return dumpTorchSymbols(s, "P", tt), s, lib
}

func TestDumpTorchSymbolsPipeline(t *testing.T) {
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
