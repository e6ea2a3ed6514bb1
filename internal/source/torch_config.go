package source

import (
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
)

// ParseBuildSettings is the Build-settings parser of pytorch_build.flags
// (docs/python.md) over torch.__config__.show() text. Python splits it
// with a lazy value and a look-ahead, which RE2 cannot express, so it is
// written out by hand:
//
//	region R: after the first "Build settings:" and the whitespace after it
//	pairs:    KEY=VALUE, KEY = [A-Z_][A-Z0-9_]* at the leftmost position
//	          where such a KEY is directly followed by "="; VALUE is the
//	          shortest text (newlines included) followed either by ","
//	          + whitespace + another KEY=, or by whitespace to the end of R
//	value:    strip, strip trailing commas, strip again; a repeated KEY
//	          overwrites but keeps its first position.
//
// It returns nil when there is no region or no pair.
func ParseBuildSettings(text string) pyjson.Map[string] {
	i := strings.Index(text, "Build settings:")
	if i < 0 {
		return nil
	}
	r := []rune(strings.TrimLeftFunc(text[i+len("Build settings:"):], pyfmt.IsSpace))
	last := len(r) - 1 // last non-whitespace rune
	for last >= 0 && pyfmt.IsSpace(r[last]) {
		last--
	}
	var m pyjson.Map[string]
	for p := 0; p < len(r); {
		eq, ok := keyAt(r, p)
		if !ok {
			p++
			continue
		}
		key := string(r[p:eq])
		start := eq + 1
		end := start
		// The lazy value: the first end where the look-ahead holds. It
		// always holds at last+1 (only whitespace remains).
		for end <= last && !pairFollows(r, end) {
			end++
		}
		v := pyfmt.Strip(strings.TrimRight(pyfmt.Strip(string(r[start:end])), ","))
		m.Set(key, v)
		p = end
	}
	return m
}

// keyAt reports whether [A-Z_][A-Z0-9_]* followed by "=" starts at r[p]
// and returns the index of that "=".
func keyAt(r []rune, p int) (int, bool) {
	if p >= len(r) || !(r[p] == '_' || r[p] >= 'A' && r[p] <= 'Z') {
		return 0, false
	}
	q := p + 1
	for q < len(r) && (r[q] == '_' || r[q] >= 'A' && r[q] <= 'Z' || r[q] >= '0' && r[q] <= '9') {
		q++
	}
	if q < len(r) && r[q] == '=' {
		return q, true
	}
	return 0, false
}

// pairFollows is the look-ahead ",\s+KEY=" at r[i].
func pairFollows(r []rune, i int) bool {
	if i >= len(r) || r[i] != ',' {
		return false
	}
	j := i + 1
	for j < len(r) && pyfmt.IsSpace(r[j]) {
		j++
	}
	if j == i+1 {
		return false
	}
	_, ok := keyAt(r, j)
	return ok
}

var cxxDefineRe = lazyre.New(`-D([A-Za-z_][A-Za-z0-9_]*)(?:=(` + pyfmt.ReNotSpaceOrComma + `+))?`)

// ParseCXXDefines is pytorch_build.cxx_defines (docs/python.md): every
// -DNAME[=VALUE] in the CXX_FLAGS text (VALUE: no whitespace, no comma; none
// → null), later duplicates overwriting, sorted by NAME.
func ParseCXXDefines(flags string) pyjson.Map[*string] {
	m := map[string]*string{}
	for _, sm := range cxxDefineRe().FindAllStringSubmatchIndex(flags, -1) {
		var v *string
		if sm[4] >= 0 {
			s := flags[sm[4]:sm[5]]
			v = &s
		}
		m[flags[sm[2]:sm[3]]] = v
	}
	return pyjson.Sorted(m)
}
