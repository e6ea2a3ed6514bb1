package triage

import (
	"aorta-probe/internal/docread"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"unicode/utf8"
)

// compact renders a decoded value as one-line JSON (",", ":" separators,
// UTF-8 kept). Equal values give equal strings, so it is also the
// comparison key.
func compact(v any) string {
	return string(appendCompact(nil, v))
}

func appendCompact(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case number:
		return append(b, x...)
	case string:
		return appendString(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCompact(b, e)
		}
		return append(b, ']')
	case object:
		b = append(b, '{')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e.Key)
			b = append(b, ':')
			b = appendCompact(b, e.Value)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

func appendString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// bulky is the size above which an array or object value is shown as a
// digest: per-file lists and cmake entries are compared, not printed.
const bulky = 160

// shown is the comparison key of a leaf value: its compact JSON, or for a
// bulky array/object "<N items, sha256 0123456789ab>".
func shown(v any) string {
	s := compact(v)
	if len(s) <= bulky {
		return s
	}
	n := 0
	switch x := v.(type) {
	case []any:
		n = len(x)
	case object:
		n = len(x)
	default:
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return "<" + strconv.Itoa(n) + " items, sha256 " + hex.EncodeToString(sum[:6]) + ">"
}

// readInput reads the file at path, or stdin when path is "-", through
// the bounded reader validate shares (internal/docread, docs/usage.md);
// the error names the path once.
func readInput(path string, stdin *os.File) (string, error) {
	var in io.Reader
	if stdin != nil {
		in = stdin
	}
	text, err := docread.Read(path, in)
	if err != nil {
		return "", fmt.Errorf("%s: %v", path, unwrapPath(err))
	}
	return text, nil
}

// unwrapPath drops the path an *fs.PathError repeats; callers name the file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
