package pyjson

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"aorta-probe/internal/pyfmt"
)

// Python's view of a decoded value (what json.loads returned in the
// Python probe): its str(), repr() and type() name. The text rules of the
// scalars (string repr, float repr) are package pyfmt's.

// An optional string of the typed document (a *string field of
// schema's types) is the value it stands for: None when nil, else the
// string (optional).

// TypeName is Python's type(v).__name__ of a decoded value.
func TypeName(v any) string {
	switch t := optional(v).(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case Number:
		if t.IsInteger() {
			return "int"
		}
		return "float"
	case []any:
		return "list"
	}
	return "dict"
}

// Str is Python's str() of a decoded value: strings as they are,
// True/False/None, integers in decimal, floats as repr, lists and dicts as
// their repr.
func Str(v any) string {
	if s, ok := optional(v).(string); ok {
		return s
	}
	return Repr(v)
}

// Repr is Python's repr() of a decoded value.
func Repr(v any) string {
	switch t := optional(v).(type) {
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case string:
		return pyfmt.Repr(t)
	case Number:
		return t.pyStr()
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = Repr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Map[any]:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = pyfmt.Repr(e.Key) + ": " + Repr(e.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// Truthy is Python's bool() of a decoded value.
func Truthy(v any) bool {
	switch x := optional(v).(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case Number:
		// 0, -0, 0.0, 0e5 are false; NaN and Infinity are true.
		return strings.Trim(string(x), "0.-+eE") != ""
	case []any:
		return len(x) > 0
	case Map[any]:
		return len(x) > 0
	}
	return true
}

// optional is the decoded value v stands for when it is an optional
// string of the typed document: nil (null) or the string; any other v as
// it is.
func optional(v any) any {
	if p, ok := v.(*string); ok {
		if p == nil {
			return nil
		}
		return *p
	}
	return v
}

// pyStr is Python's str() (and repr()) of int(n) or float(n), as
// json.loads converts the literal: "-0" is 0, "1e400" is inf.
func (n Number) pyStr() string {
	s := string(n)
	if n.IsInteger() {
		return pyfmt.IntLiteral(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case s == "NaN":
		return "nan"
	case s == "Infinity" || (err != nil && math.IsInf(f, 1)):
		return "inf"
	case s == "-Infinity" || (err != nil && math.IsInf(f, -1)):
		return "-inf"
	}
	return pyfmt.FloatRepr(f)
}
