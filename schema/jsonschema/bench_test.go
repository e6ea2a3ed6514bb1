package jsonschema

import (
	"os"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
)

// BenchmarkValidate: decode and validate the largest golden document.
//
//	go test ./schema/jsonschema -run '^$' -bench . -benchmem
func BenchmarkValidate(b *testing.B) {
	text, err := os.ReadFile("../../testdata/golden/mi350-host.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if ps, err := ValidateJSON(string(text)); err != nil || len(ps) > 0 {
			b.Fatal(err, ps)
		}
	}
}

// BenchmarkValidateOnly: validation of an already decoded document.
func BenchmarkValidateOnly(b *testing.B) {
	text, err := os.ReadFile("../../testdata/golden/mi350-host.json")
	if err != nil {
		b.Fatal(err)
	}
	doc, err := pyjson.Decode(string(text))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if ps := Validate(doc); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
}

// BenchmarkGenerate: building both schema documents from the types (done
// once per process).
func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		Generate(nil)
	}
}
