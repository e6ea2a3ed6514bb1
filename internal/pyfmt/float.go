package pyfmt

import (
	"math"
	"strconv"
)

// AppendFloat appends Python's repr of f (float.__repr__): the shortest
// digits that round-trip, ".0" on integral values, exponent form when the
// decimal exponent is below -4 or from 16 on (1e-05, 1e+16), and nan, inf
// and -inf. pyjson writes the same digits with JSON's NaN/Infinity tokens
// instead (AppendFloatJSON).
func AppendFloat(b []byte, f float64) []byte { return appendFloat(b, f, "nan", "inf") }

// FloatRepr is AppendFloat as a string.
func FloatRepr(f float64) string { return string(AppendFloat(nil, f)) }

// AppendFloatJSON appends f as Python's json.dumps writes a float: repr
// for finite values, and the tokens NaN, Infinity and -Infinity.
func AppendFloatJSON(b []byte, f float64) []byte { return appendFloat(b, f, "NaN", "Infinity") }

func appendFloat(b []byte, f float64, nan, inf string) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, nan...)
	case math.IsInf(f, 1):
		return append(b, inf...)
	case math.IsInf(f, -1):
		return append(append(b, '-'), inf...)
	}
	return appendFinite(b, f)
}

func appendFinite(b []byte, f float64) []byte {
	// 'e' with precision -1 gives the shortest round-trip digits: d.ddde±XX.
	var tmp [32]byte
	sci := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	if sci[0] == '-' {
		b = append(b, '-')
		sci = sci[1:]
	}
	// sci is d[.ddd]e±XX: collect the digits and the exponent.
	var digits [24]byte
	nd := 0
	i := 0
	for ; sci[i] != 'e'; i++ {
		if sci[i] != '.' {
			digits[nd] = sci[i]
			nd++
		}
	}
	exp, _ := strconv.Atoi(string(sci[i+1:]))
	d := digits[:nd]
	switch {
	case exp < -4 || exp >= 16:
		b = append(b, d[0])
		if len(d) > 1 {
			b = append(b, '.')
			b = append(b, d[1:]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	case exp < 0:
		b = append(b, "0."...)
		for range -exp - 1 {
			b = append(b, '0')
		}
		return append(b, d...)
	case len(d) <= exp+1:
		b = append(b, d...)
		for range exp + 1 - len(d) {
			b = append(b, '0')
		}
		return append(b, ".0"...)
	}
	b = append(b, d[:exp+1]...)
	b = append(b, '.')
	return append(b, d[exp+1:]...)
}

// IntLiteral is Python's str() of int(literal) for a JSON integer literal
// (digits with an optional minus sign, as a JSON decoder accepts them):
// "-0" is "0". Arbitrary size, as Python ints are.
func IntLiteral(s string) string {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	if s == "0" || s == "" {
		return "0"
	}
	if neg {
		return "-" + s
	}
	return s
}
