package pyjson_test

import (
	"os"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
	"aorta-probe/internal/pyjson"
)

// BenchmarkCodec decodes the largest golden document and encodes the
// decoded value again (go test ./internal/pyjson -bench Codec).
func BenchmarkCodec(b *testing.B) {
	text, err := os.ReadFile("../../testdata/golden/mi350-host.json")
	if err != nil {
		b.Fatal(err)
	}
	v, err := pyjson.Decode(string(text))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for range b.N {
			if _, err := pyjson.Decode(string(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for range b.N {
			pyjson.Encode(v)
		}
	})
}
