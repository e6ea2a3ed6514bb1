package probe

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
)

// torchNativeSonames are the libraries that locate torch's native lib
// directory through /proc/self/maps, in preference order (context.md §12.7).
var torchNativeSonames = []string{"libtorch_hip.so", "libtorch.so", "libtorch_cpu.so", "libc10_hip.so", "libc10.so"}

// mapsFirstPaths parses /proc/self/maps text (of the helper, after it
// imported torch) into, per wanted soname, the path of the first mapping
// whose basename is the soname or starts with soname + ".". Lines are split
// into at most 6 whitespace fields (the path, 6th, may hold spaces); lines
// with fewer fields, paths not starting with "/" and paths ending in
// " (deleted)" are skipped.
func mapsFirstPaths(maps string, sonames []string) map[string]string {
	out := map[string]string{}
	for _, line := range pySplitlines(maps) {
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
		rest = strings.TrimLeftFunc(rest, isPySpace)
		j := strings.IndexFunc(rest, isPySpace)
		if j < 0 {
			return "", false
		}
		rest = rest[j:]
	}
	rest = strings.TrimLeftFunc(rest, isPySpace)
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
		if p, ok := found[so]; ok && s.root.exists(p) {
			return p, true
		}
	}
	return "", false
}

// torchNativeLibDir is the shared "torch native lib dir" helper (context.md
// §12.7, core.md §12.7): <dir of torch.__file__>/lib when it is a
// directory, else the directory of the first still-existing mapped torch
// library by soname preference.
func torchNativeLibDir(s *state, t *pyTorch) (string, bool) {
	if d := t.fileDir(); d != "" && s.root.isDir(d+"/lib") {
		return d + "/lib", true
	}
	if p, ok := torchMapsLib(s, t, torchNativeSonames); ok {
		return pyDirname(p), true
	}
	return "", false
}

// symbolDump is the shared per-collection libtorch_hip symbol dump
// (core.md §12.3, context.md §12.7): the demangled `nm -D --defined-only`
// output of libtorch_hip.so, or nil. It is computed once, by the
// composable_kernel probe, whose prefix owns its reasons; pytorch_build
// reuses it.
type symbolDump struct {
	text *string
}

// nmMaxOutput caps nm and c++filt output: libtorch_hip's dynamic symbol
// table demangles to tens of MiB.
const nmMaxOutput = 512 << 20

// dumpTorchSymbols runs the dump procedure with prefix P for its reasons.
func dumpTorchSymbols(s *state, prefix string, t *pyTorch) symbolDump {
	if vm := t.VersionModule; vm != nil && vm.HIP == nil {
		return symbolDump{} // CPU or CUDA wheel
	}
	dir := t.fileDir()
	lib := ""
	if dir != "" && s.root.exists(dir+"/lib/libtorch_hip.so") {
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
	r := s.run(Command{Argv: nmArgv, Timeout: LongTimeout, MaxOutput: nmMaxOutput})
	switch {
	case r.Err == ErrTimeout:
		s.reason("%s: nm invocation failed (%s)", prefix, timeoutText(nmArgv))
		return symbolDump{}
	case r.Err != nil && !isExit(r.Err):
		s.reason("%s: nm invocation failed (%s)", prefix, pyfmt.ExcStr(r.Err))
		return symbolDump{}
	case r.Err != nil:
		s.reason("%s: nm exited %d on %s", prefix, r.ExitCode, lib)
		return symbolDump{}
	}
	if !utf8.Valid(r.Stdout) {
		// Python's strict text decoding raises; the dump wrapper swallows it.
		return symbolDump{}
	}
	cfArgv := []string{cxxfilt}
	r2 := s.run(Command{Argv: cfArgv, Stdin: r.Stdout, Timeout: LongTimeout, MaxOutput: nmMaxOutput})
	switch {
	case r2.Err == ErrTimeout:
		s.reason("%s: c++filt invocation failed (%s)", prefix, timeoutText(cfArgv))
		return symbolDump{}
	case r2.Err != nil && !isExit(r2.Err):
		s.reason("%s: c++filt invocation failed (%s)", prefix, pyfmt.ExcStr(r2.Err))
		return symbolDump{}
	case r2.Err != nil:
		s.reason("%s: c++filt exited %d", prefix, r2.ExitCode)
		return symbolDump{}
	}
	if !utf8.Valid(r2.Stdout) {
		return symbolDump{}
	}
	text := string(r2.Stdout)
	return symbolDump{text: &text}
}

func isExit(err error) bool { _, ok := err.(*ExitError); return ok }

// timeoutText is str(subprocess.TimeoutExpired) for a 30 s command.
func timeoutText(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = pyfmt.Repr(a)
	}
	return fmt.Sprintf("Command '[%s]' timed out after 30.0 seconds", strings.Join(q, ", "))
}

// countLinesContaining counts the lines of text (Python splitlines) that
// contain sub.
func countLinesContaining(text, sub string) int {
	n := 0
	for _, l := range pySplitlines(text) {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}
