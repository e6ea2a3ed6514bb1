package probe

import (
	"regexp"
	"strconv"
	"sync"
	"unicode"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/pyfmt"
)

// headerPatterns are the compiled regexes of one library prefix.
type headerPatterns struct {
	tweak, part *regexp.Regexp
}

func compileHeader(prefix string) headerPatterns {
	return headerPatterns{
		tweak: regexp.MustCompile(`#define` + pyfmt.ReSpace + `+` + prefix + `_VERSION_TWEAK` + pyfmt.ReSpace + `+([A-Za-z0-9_.+\-]+)`),
		part:  regexp.MustCompile(`#define` + pyfmt.ReSpace + `+` + prefix + `_VERSION_(MAJOR|MINOR|PATCH)` + pyfmt.ReSpace + `+(` + pyfmt.ReDigit + `+)`),
	}
}

// headerPrefixes are the patterns of the known prefixes, each compiled on
// first use (package lazyre).
var headerPrefixes = map[string]func() headerPatterns{
	"HIPBLASLT": lazyHeader("HIPBLASLT"),
	"ROCBLAS":   lazyHeader("ROCBLAS"),
	"MIOPEN":    lazyHeader("MIOPEN"),
}

func lazyHeader(prefix string) func() headerPatterns {
	return sync.OnceValue(func() headerPatterns { return compileHeader(prefix) })
}

// hdrParse is hdr-parse(text, PREFIX)
// (docs/rocm-libraries.md#hipblaslt--rocblas-filesystem) over the read-text
// of a version header: the FIRST <PREFIX>_VERSION_TWEAK define (not anchored
// to a line start) and the LAST of each MAJOR/MINOR/PATCH define, joined
// "MAJOR.MINOR.PATCH" with the digit strings verbatim when all three were
// seen. prefix is HIPBLASLT, ROCBLAS or MIOPEN.
func hdrParse(text *string, prefix string) (tweak, version *string) {
	if text == nil || *text == "" {
		return nil, nil
	}
	var pat headerPatterns
	if known, ok := headerPrefixes[prefix]; ok {
		pat = known()
	} else {
		pat = compileHeader(regexp.QuoteMeta(prefix))
	}
	if m := pat.tweak.FindStringSubmatch(*text); m != nil {
		tweak = &m[1]
	}
	parts := map[string]string{}
	for _, m := range pat.part.FindAllStringSubmatch(*text, -1) {
		parts[m[1]] = m[2] // later occurrences win
	}
	maj, ok1 := parts["MAJOR"]
	mnr, ok2 := parts["MINOR"]
	pat2, ok3 := parts["PATCH"]
	if ok1 && ok2 && ok3 {
		v := maj + "." + mnr + "." + pat2
		version = &v
	}
	return tweak, version
}

var ncclVersionCode = lazyre.New(`#define` + pyfmt.ReSpace + `+NCCL_VERSION_CODE` + pyfmt.ReSpace + `+(` + pyfmt.ReDigit + `+)`)

// rcclVersionCode is the first NCCL_VERSION_CODE define of rccl.h as an
// integer
// (docs/rocm-libraries.md#rccl-filesystem-plugin-fields-process-scope),
// Unicode digits valued as Python's int() does. A value beyond int64 (never
// seen; Python would keep a big integer) is reported as no value.
func rcclVersionCode(text *string) *int {
	if text == nil {
		return nil
	}
	m := ncclVersionCode().FindStringSubmatch(*text)
	if m == nil {
		return nil
	}
	ascii := make([]byte, 0, len(m[1]))
	for _, r := range m[1] {
		ascii = append(ascii, byte('0'+digitValue(r)))
	}
	n, err := strconv.ParseInt(string(ascii), 10, strconv.IntSize)
	if err != nil {
		return nil
	}
	v := int(n)
	return &v
}

// digitValue is the value of a Unicode decimal digit (category Nd): the
// digits of every script come in contiguous runs of ten starting at zero.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	z := r
	for z > 0 && unicode.IsDigit(z-1) {
		z--
	}
	return int(r-z) % 10
}

// rcclVersion decodes NCCL_VERSION_CODE
// (docs/rocm-libraries.md#rccl-filesystem-plugin-fields-process-scope): codes
// from 10000 on are MAJOR*10000 + MINOR*100 + PATCH (22707 = 2.27.7), older
// ones MAJOR*1000 + MINOR*100 + PATCH (2807 = 2.8.7). The code is never
// negative (the define's value is digits only).
func rcclVersion(code int) string {
	major, minor := code/1000, code%1000/100
	if code >= 10000 {
		major, minor = code/10000, code%10000/100
	}
	return strconv.Itoa(major) + "." + strconv.Itoa(minor) + "." + strconv.Itoa(code%100)
}

// headerReason is the reason of a field read from the version header
// header (text its content, nil when unreadable): the header not
// readable, or without what the field is read from (lacks).
func headerReason(s *state, field, header string, text *string, lacks string) {
	if text == nil {
		s.reason("%s: %s not readable", field, header)
		return
	}
	s.reason("%s: %s did not contain %s", field, header, lacks)
}
