package pyfmt

import (
	"math"
	"strconv"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// The tables below are the tricky cases of the differential fuzzing that
// unified this package's float repr and UTF-8 decoding with the copies it
// replaced (pyjson's appendFloat, buck's pyFloatRepr, probe's
// utf8DecodeError, utf8Check and decodeReplace: identical on 1.2M fuzzed
// floats and on fuzzed byte strings). Expected values are what those
// copies returned; they agree with CPython 3.12 (repr(float),
// json.dumps(float), bytes.decode).

func TestFloatReprTable(t *testing.T) {
	for _, tc := range []struct {
		in         float64
		json, repr string
	}{
		{0, "0.0", "0.0"},
		{math.Copysign(0, -1), "-0.0", "-0.0"},
		{1, "1.0", "1.0"},
		{-1.5, "-1.5", "-1.5"},
		{2.5, "2.5", "2.5"},
		{1e+16, "1e+16", "1e+16"},
		{9.999999999999998e+15, "9999999999999998.0", "9999999999999998.0"},
		{1e+15, "1000000000000000.0", "1000000000000000.0"},
		{1.2345678901234568e+17, "1.2345678901234568e+17", "1.2345678901234568e+17"},
		{0.0001, "0.0001", "0.0001"},
		{1e-05, "1e-05", "1e-05"},
		{0.00012345, "0.00012345", "0.00012345"},
		{5e-324, "5e-324", "5e-324"},
		{1.7976931348623157e+308, "1.7976931348623157e+308", "1.7976931348623157e+308"},
		{0.1, "0.1", "0.1"},
		{0.3333333333333333, "0.3333333333333333", "0.3333333333333333"},
		{1e+22, "1e+22", "1e+22"},
		{1e+100, "1e+100", "1e+100"},
		{-2.5e-07, "-2.5e-07", "-2.5e-07"},
		{100, "100.0", "100.0"},
		{math.Inf(1), "Infinity", "inf"},
		{math.Inf(-1), "-Infinity", "-inf"},
		{math.NaN(), "NaN", "nan"},
	} {
		if got := string(AppendFloatJSON(nil, tc.in)); got != tc.json {
			t.Errorf("AppendFloatJSON(%v) = %s, want %s", tc.in, got, tc.json)
		}
		if got := FloatRepr(tc.in); got != tc.repr {
			t.Errorf("FloatRepr(%v) = %s, want %s", tc.in, got, tc.repr)
		}
	}
}

func TestDecodeUTF8Table(t *testing.T) {
	for in, want := range map[string]struct{ err, replaced string }{
		"\xc2":               {"'utf-8' codec can't decode byte 0xc2 in position 0: unexpected end of data", "\ufffd"},
		"\xdf\x7f":           {"'utf-8' codec can't decode byte 0xdf in position 0: invalid continuation byte", "\ufffd\x7f"},
		"\xe0\x9f\x80":       {"'utf-8' codec can't decode byte 0xe0 in position 0: invalid continuation byte", "\ufffd\ufffd\ufffd"},
		"\xe0\xa0":           {"'utf-8' codec can't decode bytes in position 0-1: unexpected end of data", "\ufffd"},
		"\ud7ff\xed\xa0":     {"'utf-8' codec can't decode byte 0xed in position 3: invalid continuation byte", "\ud7ff\ufffd\ufffd"},
		"\ufffd\xff":         {"'utf-8' codec can't decode byte 0xff in position 3: invalid start byte", "\ufffd\ufffd"},
		"\xf0\x8f\x80\x80":   {"'utf-8' codec can't decode byte 0xf0 in position 0: invalid continuation byte", "\ufffd\ufffd\ufffd\ufffd"},
		"\U0010ffff\xf4\x90": {"'utf-8' codec can't decode byte 0xf4 in position 4: invalid continuation byte", "\U0010ffff\ufffd\ufffd"},
		"\xf5":               {"'utf-8' codec can't decode byte 0xf5 in position 0: invalid start byte", "\ufffd"},
		"\x80":               {"'utf-8' codec can't decode byte 0x80 in position 0: invalid start byte", "\ufffd"},
		"a\xf0\x90\x80":      {"'utf-8' codec can't decode bytes in position 1-3: unexpected end of data", "a\ufffd"},
	} {
		if got := DecodeUTF8([]byte(in)); got == nil || got.Error() != want.err {
			t.Errorf("DecodeUTF8(%q) = %v, want %s", in, got, want.err)
		}
		if got := DecodeReplace([]byte(in)); got != want.replaced {
			t.Errorf("DecodeReplace(%q) = %q, want %q", in, got, want.replaced)
		}
	}
}

func FuzzFloatRepr(f *testing.F) {
	for _, x := range []float64{0, 1e16, 1e-5, 5e-324, math.Inf(1)} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		r := FloatRepr(x)
		if string(AppendFloatJSON(nil, x)) != r {
			t.Fatalf("%v: json and repr differ for a finite value", x)
		}
		// repr round-trips (Go's parser reads Python's forms).
		if y, err := strconv.ParseFloat(r, 64); err != nil || y != x || math.Signbit(y) != math.Signbit(x) {
			t.Fatalf("%v: repr %s reads back as %v, %v", x, r, y, err)
		}
	})
}
