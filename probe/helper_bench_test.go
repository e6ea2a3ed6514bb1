package probe

import (
	"strings"
	"testing"
)

// BenchmarkParseHelperOutput reads a helper stream whose torch facts carry
// a 300 KiB /proc/self/maps, as a process that mapped torch reports it
// (go test ./probe -run '^$' -bench ParseHelperOutput).
func BenchmarkParseHelperOutput(b *testing.B) {
	maps := strings.Repeat(`7f0000000000-7f0000001000 r-xp 00000000 08:01 1234 /usr/lib/python3/site-packages/torch/lib/libtorch_hip.so\n`, 2800)
	stream := strings.Replace(helperStream(`{"a": [1, 2.5, "x"]}`, "2.5.0"), `"maps": null`, `"maps": "`+maps+`"`, 1)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for range b.N {
		f := &pyFacts{TorchSites: map[string]string{}}
		parseHelperOutput(f, []byte(stream))
		if f.outcome != pyOK || f.Torch == nil || f.Torch.Maps == nil {
			b.Fatal("stream not read")
		}
	}
}
