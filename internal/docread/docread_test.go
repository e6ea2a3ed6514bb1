package docread

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		err            error
	}{
		{"empty", "", "", nil},
		{"document", `{"a": [1, 2]}` + "\n", `{"a": [1, 2]}` + "\n", nil},
		{"tab cr lf kept", "{\t\r\n}", "{\t\r\n}", nil},
		{"NUL ends it", "{\"a\": 1}\x00rest", "{\"a\": 1}\x00", nil},
		{"control byte in a string", "[\"a\x01b\"]", "[\"a\x01", nil},
		{"DEL is allowed", "[\"\x7f\"]", "[\"\x7f\"]", nil},
		{"at the cap", strings.Repeat(" ", MaxBytes), strings.Repeat(" ", MaxBytes), nil},
		{"past the cap", strings.Repeat(" ", MaxBytes+1), "", ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read("-", strings.NewReader(tc.in))
			if !errors.Is(err, tc.err) || got != tc.want {
				t.Errorf("got %.40q, %v; want %.40q, %v", got, err, tc.want, tc.err)
			}
		})
	}
	if _, err := Read("-", nil); err == nil {
		t.Error("no stdin: no error")
	}
	var pe *os.PathError
	if _, err := Read(t.TempDir()+"/missing", nil); !errors.As(err, &pe) || pe.Op != "open" {
		t.Errorf("missing file: %v", err)
	}
	f, _ := os.CreateTemp(t.TempDir(), "doc")
	io.WriteString(f, `{"k": "v"}`)
	f.Close()
	if got, err := Read(f.Name(), nil); err != nil || got != `{"k": "v"}` {
		t.Errorf("regular file: %q, %v", got, err)
	}
}

// FuzzReadSameError: where Read stops early at a control byte, the decoder
// fails on what it returns with the message it gives for the whole input.
func FuzzReadSameError(f *testing.F) {
	for _, s := range []string{"{\"a\": 1}\x00", "[1, 2\x00, 3]", "\"ab\x01cd\"", "\x00\x00", "{\"a\x1f\": 1}", "12\x0034", "{} \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Read("-", strings.NewReader(in))
		if err != nil || got == in {
			return
		}
		_, whole := pyjson.Decode(in)
		_, prefix := pyjson.Decode(got)
		if whole == nil || prefix == nil || whole.Error() != prefix.Error() {
			t.Errorf("%q: whole input %v, read prefix %v", in, whole, prefix)
		}
	})
}
