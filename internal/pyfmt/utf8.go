package pyfmt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// UnicodeDecodeError is the first sequence of a byte string that Python's
// UTF-8 decoder rejects, with its message ("'utf-8' codec can't decode
// byte 0xff in position 0: invalid start byte"): Start is the offset of
// the bad sequence, End its exclusive end, Byte its first byte, Reason
// "invalid start byte", "invalid continuation byte" or "unexpected end of
// data" (a sequence cut at the end of the input).
type UnicodeDecodeError struct {
	Byte       byte
	Start, End int
	Reason     string
}

func (e *UnicodeDecodeError) Error() string {
	if e.End-e.Start > 1 {
		return fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", e.Start, e.End-1, e.Reason)
	}
	return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", e.Byte, e.Start, e.Reason)
}

// DecodeUTF8 returns the error Python's bytes.decode("utf-8") raises for b,
// or nil when b is valid UTF-8. CPython reports one error per maximal
// valid-so-far prefix: "\xe2\x82(" is one error over two bytes.
func DecodeUTF8(b []byte) *UnicodeDecodeError {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			i += n
			continue
		}
		c := b[i]
		need := 0
		switch {
		case c >= 0xc2 && c <= 0xdf:
			need = 1
		case c >= 0xe0 && c <= 0xef:
			need = 2
		case c >= 0xf0 && c <= 0xf4:
			need = 3
		default:
			return &UnicodeDecodeError{Byte: c, Start: i, End: i + 1, Reason: "invalid start byte"}
		}
		// Count the valid continuation bytes that follow; the second byte
		// of E0, ED, F0 and F4 has a narrower range (no overlongs, no
		// surrogates, nothing above U+10FFFF).
		j := i + 1
		for ; j < len(b) && j <= i+need; j++ {
			lo, hi := byte(0x80), byte(0xbf)
			if j == i+1 {
				switch c {
				case 0xe0:
					lo = 0xa0
				case 0xed:
					hi = 0x9f
				case 0xf0:
					lo = 0x90
				case 0xf4:
					hi = 0x8f
				}
			}
			if b[j] < lo || b[j] > hi {
				return &UnicodeDecodeError{Byte: c, Start: i, End: j, Reason: "invalid continuation byte"}
			}
		}
		return &UnicodeDecodeError{Byte: c, Start: i, End: j, Reason: "unexpected end of data"}
	}
	return nil
}

// DecodeReplace decodes b as Python's bytes.decode("utf-8", "replace")
// does: each sequence DecodeUTF8 reports becomes one U+FFFD.
func DecodeReplace(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		de := DecodeUTF8(b)
		if de == nil {
			sb.Write(b)
			break
		}
		sb.Write(b[:de.Start])
		sb.WriteRune(utf8.RuneError)
		b = b[de.End:]
	}
	return sb.String()
}
