package probe

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// torchNativeSonames are the libraries that locate torch's native lib
// directory through /proc/self/maps, in preference order (docs/python.md).
var torchNativeSonames = []string{"libtorch_hip.so", "libtorch.so", "libtorch_cpu.so", "libc10_hip.so", "libc10.so"}

// mapsFirstPaths parses /proc/self/maps text (of the helper, after it
// imported torch) into, per wanted soname, the path of the first mapping
// whose basename is the soname or starts with soname + ".". Lines are split
// into at most 6 whitespace fields (the path, 6th, may hold spaces); lines
// with fewer fields, paths not starting with "/" and paths ending in
// " (deleted)" are skipped.
func mapsFirstPaths(maps string, sonames []string) map[string]string {
	out := map[string]string{}
	for _, line := range pyfmt.Splitlines(maps) {
		path, ok := mapsPath(line)
		if !ok {
			continue
		}
		base := path[strings.LastIndex(path, "/")+1:]
		for _, so := range sonames {
			if _, seen := out[so]; seen {
				continue
			}
			if base == so || strings.HasPrefix(base, so+".") {
				out[so] = path
			}
		}
	}
	return out
}

// mapsPath is the pathname field of one maps line: Python's
// line.split(None, 5)[5], kept only when absolute and not deleted.
func mapsPath(line string) (string, bool) {
	rest := line
	for i := 0; i < 5; i++ {
		rest = strings.TrimLeftFunc(rest, pyfmt.IsSpace)
		j := strings.IndexFunc(rest, pyfmt.IsSpace)
		if j < 0 {
			return "", false
		}
		rest = rest[j:]
	}
	rest = strings.TrimLeftFunc(rest, pyfmt.IsSpace)
	// The remainder keeps its inner and trailing whitespace, as split(None, 5).
	if rest == "" || !strings.HasPrefix(rest, "/") || strings.HasSuffix(rest, " (deleted)") {
		return "", false
	}
	return rest, true
}

// torchMapsLib is the maps lookup for one or more sonames in preference
// order: the first whose mapped path still exists.
func torchMapsLib(s *state, t *pyTorch, sonames []string) (string, bool) {
	if t.Maps == nil {
		return "", false
	}
	found := mapsFirstPaths(*t.Maps, sonames)
	for _, so := range sonames {
		if p, ok := found[so]; ok && s.root.Exists(p) {
			return p, true
		}
	}
	return "", false
}

// torchNativeLibDir is the shared "torch native lib dir" helper
// (docs/python.md): <dir of torch.__file__>/lib when it is a directory, else
// the directory of the first still-existing mapped torch library by soname
// preference.
func torchNativeLibDir(s *state, t *pyTorch) (string, bool) {
	if d := t.fileDir(); d != "" && s.root.IsDir(d+"/lib") {
		return d + "/lib", true
	}
	if p, ok := torchMapsLib(s, t, torchNativeSonames); ok {
		return pyDirname(p), true
	}
	return "", false
}

// symbolDump is the shared per-collection libtorch_hip symbol dump
// (docs/python.md): how many lines of the demangled
// `nm -D --defined-only` output of libtorch_hip.so contain each marker, or
// nothing. It is computed once, by the composable_kernel probe, whose prefix
// owns its reasons; pytorch_build reuses it. Only the counts are kept: the
// dump itself (tens of MiB for a real libtorch_hip, unbounded for a hostile
// nm) streams through and is never held (docs/design-notes.md).
type symbolDump struct {
	counts map[string]int // nil: no dump
}

// count is the number of dump lines containing marker; ok is false when
// there is no dump.
func (d symbolDump) count(marker string) (n int, ok bool) {
	if d.counts == nil {
		return 0, false
	}
	return d.counts[marker], true
}

// symbolMarkers are the substrings counted in the dump: composable_kernel's
// "ck::" and binary_introspection's markers.
var symbolMarkers = append([]string{"ck::"}, schema.SymbolMarkers...)

// dumpTorchSymbols runs the dump procedure with prefix P for its reasons:
// `nm -D --defined-only LIB | c++filt`, each step's failure reported as the
// Python probe reports it (nm first: its failure wins over c++filt's). The
// two run as a pipeline: nm's output is checked to be UTF-8 and fed to
// c++filt as it is read, and c++filt's output is counted line by line as it
// is read, so memory stays flat whatever they print. Both have 30 s from
// their start, which is now the same moment.
func dumpTorchSymbols(s *state, prefix string, t *pyTorch) symbolDump {
	if vm := t.VersionModule; vm != nil && vm.HIP == nil {
		return symbolDump{} // CPU or CUDA wheel
	}
	dir := t.fileDir()
	lib := ""
	if dir != "" && s.root.Exists(dir+"/lib/libtorch_hip.so") {
		lib = dir + "/lib/libtorch_hip.so"
	} else if p, ok := torchMapsLib(s, t, []string{"libtorch_hip.so"}); ok {
		lib = p
	}
	if lib == "" {
		if dir == "" {
			s.reason("%s: torch.__file__ unavailable", prefix)
		} else {
			s.reason("%s: %s/lib/libtorch_hip.so not found (torch.version.hip claims HIP but the runtime lib is missing)", prefix, dir)
		}
		return symbolDump{}
	}
	nm, ok1 := s.which("nm")
	cxxfilt, ok2 := s.which("c++filt")
	if !ok1 || !ok2 {
		s.reason("%s: nm/c++filt not on PATH (install binutils for symbol-based detection)", prefix)
		return symbolDump{}
	}
	nmArgv := []string{nm, "-D", "--defined-only", lib}
	cfArgv := []string{cxxfilt}
	pr, pw := io.Pipe()
	nmOut := &utf8Forward{w: pw}
	var r machine.Result
	nmDone := make(chan struct{})
	go func() {
		defer close(nmDone)
		r = s.run(machine.Command{Argv: nmArgv, Timeout: machine.LongTimeout, StdoutTo: nmOut})
		pw.Close() // c++filt sees end of file
	}()
	counter := newLineCounter(symbolMarkers)
	r2 := s.run(machine.Command{Argv: cfArgv, StdinFrom: pr, Timeout: machine.LongTimeout, StdoutTo: counter})
	// c++filt is gone: what nm still prints is drained and dropped.
	pr.CloseWithError(io.ErrClosedPipe)
	<-nmDone
	switch {
	case r.TimedOut():
		s.reason("%s: nm invocation failed (%s)", prefix, timeoutText(nmArgv))
		return symbolDump{}
	case r.LaunchErr() != nil:
		s.reason("%s: nm invocation failed (%s)", prefix, pyfmt.ExcStr(r.Err))
		return symbolDump{}
	case r.Err != nil:
		s.reason("%s: nm exited %d on %s", prefix, r.ExitCode, lib)
		return symbolDump{}
	}
	if !nmOut.valid.ok() {
		// Python's strict text decoding raises; the dump wrapper swallows it.
		return symbolDump{}
	}
	switch {
	case r2.TimedOut():
		s.reason("%s: c++filt invocation failed (%s)", prefix, timeoutText(cfArgv))
		return symbolDump{}
	case r2.LaunchErr() != nil:
		s.reason("%s: c++filt invocation failed (%s)", prefix, pyfmt.ExcStr(r2.Err))
		return symbolDump{}
	case r2.Err != nil:
		s.reason("%s: c++filt exited %d", prefix, r2.ExitCode)
		return symbolDump{}
	}
	counts, ok := counter.finish()
	if !ok {
		return symbolDump{}
	}
	return symbolDump{counts: counts}
}

// utf8Forward passes nm's output on to c++filt while checking that it is
// UTF-8. Once c++filt stops reading, the rest is checked and dropped: nm
// is always drained.
type utf8Forward struct {
	w      io.Writer
	valid  utf8Stream
	broken bool
}

func (f *utf8Forward) Write(p []byte) (int, error) {
	f.valid.write(p)
	if !f.broken {
		if _, err := f.w.Write(p); err != nil {
			f.broken = true
		}
	}
	return len(p), nil
}

// utf8Stream checks that a byte stream written in pieces is UTF-8, a
// sequence cut between two pieces included.
type utf8Stream struct {
	pend [utf8.UTFMax]byte
	np   int
	bad  bool
}

func (u *utf8Stream) write(p []byte) {
	if u.bad {
		return
	}
	if u.np > 0 {
		for u.np < len(u.pend) && len(p) > 0 && !utf8.FullRune(u.pend[:u.np]) {
			u.pend[u.np] = p[0]
			u.np++
			p = p[1:]
		}
		if !utf8.FullRune(u.pend[:u.np]) {
			return
		}
		if r, size := utf8.DecodeRune(u.pend[:u.np]); (r == utf8.RuneError && size == 1) || size != u.np {
			u.bad = true
			return
		}
		u.np = 0
	}
	cut := len(p)
	for i := 1; i < utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if !utf8.FullRune(p[len(p)-i:]) {
				cut = len(p) - i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) {
		u.bad = true
		return
	}
	u.np = copy(u.pend[:], p[cut:])
}

// ok reports whether everything written was UTF-8.
func (u *utf8Stream) ok() bool { return !u.bad && u.np == 0 }

// lineCounter counts, as text is written to it, the lines (Python
// splitlines) containing each marker, the way countLinesContaining does on
// the whole text. Markers are ASCII without line breaks, so a match never
// spans a break; the last bytes of an unfinished line are carried into the
// next write so that a match cut between two writes is found.
type lineCounter struct {
	markers [][]byte
	counts  []int
	inLine  []bool
	carry   []byte
	buf     []byte
	keep    int
	valid   utf8Stream
}

func newLineCounter(markers []string) *lineCounter {
	c := &lineCounter{counts: make([]int, len(markers)), inLine: make([]bool, len(markers)), keep: 2}
	for _, m := range markers {
		c.markers = append(c.markers, []byte(m))
		c.keep = max(c.keep, len(m)-1)
	}
	return c
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.valid.write(p)
	c.buf = append(append(c.buf[:0], c.carry...), p...)
	b := c.buf
	for {
		i, n := lineBreak(b)
		seg := b
		if i >= 0 {
			seg = b[:i]
		}
		for k, m := range c.markers {
			if !c.inLine[k] && bytes.Contains(seg, m) {
				c.inLine[k] = true
			}
		}
		if i < 0 {
			break
		}
		c.endLine()
		b = b[i+n:]
	}
	c.carry = append(c.carry[:0], b[len(b)-min(len(b), c.keep):]...)
	return len(p), nil
}

func (c *lineCounter) endLine() {
	for k, seen := range c.inLine {
		if seen {
			c.counts[k]++
			c.inLine[k] = false
		}
	}
}

// finish ends the last line and returns the counts by marker; ok is false
// when the text was not UTF-8 (Python's strict decoding would have raised).
func (c *lineCounter) finish() (map[string]int, bool) {
	c.endLine()
	if !c.valid.ok() {
		return nil, false
	}
	out := make(map[string]int, len(c.markers))
	for k, m := range c.markers {
		out[string(m)] = c.counts[k]
	}
	return out, true
}

// lineBreak finds the first line break of UTF-8 text b as Python's
// splitlines knows them: \n, \r, \v, \f, \x1c–\x1e, U+0085, U+2028 and
// U+2029 (\r\n reads as two breaks around an empty line, which contains
// no marker). It returns the offset and length of the break, or -1.
func lineBreak(b []byte) (int, int) {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e:
			return i, 1
		case 0xc2:
			if i+1 < len(b) && b[i+1] == 0x85 {
				return i, 2
			}
		case 0xe2:
			if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9) {
				return i, 3
			}
		}
	}
	return -1, 0
}

// timeoutText is str(subprocess.TimeoutExpired) for a 30 s command.
func timeoutText(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = pyfmt.Repr(a)
	}
	return fmt.Sprintf("Command '[%s]' timed out after 30.0 seconds", strings.Join(q, ", "))
}
