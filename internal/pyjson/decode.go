package pyjson

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decode parses JSON text the way Python's json.loads does and returns nil,
// bool, Number, string, []any or Map[any]. Like Python it accepts NaN,
// Infinity and -Infinity, keeps the last of duplicate keys at the first
// key's position, and allows surrounding whitespace. Errors carry Python's
// message text, e.g. "Expecting value: line 1 column 1 (char 0)", since
// several reasons embed it.
func Decode(text string) (any, error) {
	return decode(text, maxDepth)
}

func decode(text string, max int) (any, error) {
	d := decoder{s: text, max: max}
	d.ws()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.s) {
		return nil, d.errorf(d.i, "Extra data")
	}
	return v, nil
}

// SyntaxError is a JSON parse error worded as Python's JSONDecodeError.
type SyntaxError struct {
	Msg    string
	Line   int
	Column int
	Char   int // code-point offset, as Python counts
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Column, e.Char)
}

type decoder struct {
	s     string
	i     int
	depth int
	max   int // nesting limit
	// items and entries are scratch stacks: an array's items and an
	// object's members gather at their top and are copied out once, at
	// their final size, instead of growing a slice per container (a
	// 400 KB document holds thousands of small objects).
	items   []any
	entries []Entry[any]
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

func (d *decoder) errorf(at int, msg string) error {
	prefix := d.s[:at]
	line := strings.Count(prefix, "\n") + 1
	col := utf8.RuneCountInString(prefix[strings.LastIndexByte(prefix, '\n')+1:]) + 1
	return &SyntaxError{Msg: msg, Line: line, Column: col, Char: utf8.RuneCountInString(prefix)}
}

func (d *decoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value() (any, error) {
	if d.i >= len(d.s) {
		return nil, d.errorf(d.i, "Expecting value")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return nil, nil
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return true, nil
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return false, nil
	case strings.HasPrefix(d.s[d.i:], "NaN"):
		d.i += 3
		return Number("NaN"), nil
	case strings.HasPrefix(d.s[d.i:], "Infinity"):
		d.i += 8
		return Number("Infinity"), nil
	case strings.HasPrefix(d.s[d.i:], "-Infinity"):
		d.i += 9
		return Number("-Infinity"), nil
	case c == '-' || (c >= '0' && c <= '9'):
		if n, ok := d.number(); ok {
			return n, nil
		}
	}
	return nil, d.errorf(d.i, "Expecting value")
}

// number scans Python's NUMBER_RE: -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?.
func (d *decoder) number() (Number, bool) {
	s, i := d.s, d.i
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return "", false
	}
	if i+1 < len(s) && s[i] == '.' && s[i+1] >= '0' && s[i+1] <= '9' {
		i++
		digits()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			i = j
		}
	}
	n := Number(s[d.i:i])
	d.i = i
	return n, true
}

func (d *decoder) str() (string, error) {
	start := d.i
	d.i++ // opening quote
	// Fast path: a string without escapes or control characters is a
	// slice of the input (most of a document; no copy).
	for j := d.i; j < len(d.s); j++ {
		c := d.s[j]
		if c == '"' {
			d.i = j + 1
			return d.s[start+1 : j], nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var b strings.Builder
	for {
		if d.i >= len(d.s) {
			return "", d.errorf(start, "Unterminated string starting at")
		}
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b.String(), nil
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return "", d.errorf(start, "Unterminated string starting at")
			}
			esc := d.s[d.i+1]
			switch esc {
			case '"', '\\', '/':
				b.WriteByte(esc)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, n, err := d.unicodeEscape(d.i)
				if err != nil {
					return "", err
				}
				if r >= 0xdc80 && r <= 0xdcff {
					// A lone surrogate of surrogateescape: the raw byte
					// it stands for, as the encoder wrote it.
					b.WriteByte(byte(r - 0xdc00))
				} else {
					b.WriteRune(r)
				}
				d.i += n
				continue
			default:
				return "", d.errorf(d.i, "Invalid \\escape")
			}
			d.i += 2
		case c < 0x20:
			return "", d.errorf(d.i, "Invalid control character at")
		default:
			b.WriteByte(c)
			d.i++
		}
	}
}

// unicodeEscape decodes \uXXXX at i, joining a surrogate pair when one
// follows. A lone surrogate stays as is for the caller: U+DC80..U+DCFF are
// surrogateescape bytes; any other becomes U+FFFD (Go strings cannot hold it).
func (d *decoder) unicodeEscape(i int) (rune, int, error) {
	hex4 := func(at int) (rune, bool) {
		if at+6 > len(d.s) || d.s[at] != '\\' || d.s[at+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(d.s[at+2:at+6], 16, 32)
		return rune(v), err == nil
	}
	r, ok := hex4(i)
	if !ok {
		return 0, 0, d.errorf(i, "Invalid \\uXXXX escape")
	}
	if r >= 0xd800 && r < 0xdc00 {
		if lo, ok := hex4(i + 6); ok && lo >= 0xdc00 && lo < 0xe000 {
			return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), 12, nil
		}
	}
	if r >= 0xd800 && r < 0xe000 && (r < 0xdc80 || r > 0xdcff) {
		r = utf8.RuneError
	}
	return r, 6, nil
}

func (d *decoder) array() (any, error) {
	if d.depth++; d.depth > d.max {
		return nil, d.errorf(d.i, "Nesting too deep")
	}
	defer func() { d.depth-- }()
	d.i++
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return []any{}, nil
	}
	start := len(d.items)
	for {
		d.ws()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		d.items = append(d.items, v)
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			out := make([]any, len(d.items)-start)
			copy(out, d.items[start:])
			clear(d.items[start:])
			d.items = d.items[:start]
			return out, nil
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			return nil, d.errorf(d.i, "Expecting ',' delimiter")
		}
		d.i++
	}
}

// set is Map.Set on the members gathered from start: a repeated key keeps
// its first place and takes the last value, as Python's dict does.
func (d *decoder) set(start int, k string, v any) {
	for i := start; i < len(d.entries); i++ {
		if d.entries[i].Key == k {
			d.entries[i].Value = v
			return
		}
	}
	d.entries = append(d.entries, Entry[any]{k, v})
}

func (d *decoder) object() (any, error) {
	if d.depth++; d.depth > d.max {
		return nil, d.errorf(d.i, "Nesting too deep")
	}
	defer func() { d.depth-- }()
	d.i++
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return Map[any]{}, nil
	}
	start := len(d.entries)
	for {
		d.ws()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, d.errorf(d.i, "Expecting property name enclosed in double quotes")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.ws()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, d.errorf(d.i, "Expecting ':' delimiter")
		}
		d.i++
		d.ws()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		d.set(start, k, v)
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			out := make(Map[any], len(d.entries)-start)
			copy(out, d.entries[start:])
			clear(d.entries[start:])
			d.entries = d.entries[:start]
			return out, nil
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			return nil, d.errorf(d.i, "Expecting ',' delimiter")
		}
		d.i++
	}
}
