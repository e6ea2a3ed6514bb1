package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// wholeTextCMakeCache is the pytorch_build.cmake_cache rule (docs/python.md)
// applied to the whole decoded text at once, as the Python probe does: the
// oracle the streaming scanner must agree with (below the caps).
func wholeTextCMakeCache(b []byte) map[string]schema.CMakeCacheEntry {
	m := map[string]schema.CMakeCacheEntry{}
	for _, line := range pyfmt.Splitlines(pyfmt.DecodeReplace(b)) {
		line = pyfmt.Strip(line)
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
			continue
		}
		if sm := cmakeLineRe().FindStringSubmatch(line); sm != nil && allowlisted(sm[1]) {
			m[sm[1]] = schema.CMakeCacheEntry{Type: sm[2], Value: sm[3]}
		}
	}
	return m
}

func checkCMakeStream(t *testing.T, text string) {
	t.Helper()
	want := mapText(pyjson.Sorted(wholeTextCMakeCache([]byte(text))), func(e schema.CMakeCacheEntry) string { return e.Type + ":" + e.Value })
	// One byte per read: every line break and UTF-8 sequence is cut.
	c, err := scanCMakeCache(iotest.OneByteReader(strings.NewReader(text)))
	if err != nil {
		t.Fatal(err)
	}
	got := mapText(pyjson.Sorted(c.entries), func(e schema.CMakeCacheEntry) string { return e.Type + ":" + e.Value })
	if got != want || c.dropped != 0 {
		t.Errorf("%q:\n got %s (dropped %d)\nwant %s", text, got, c.dropped, want)
	}
}

func TestCMakeCacheStreamMatchesWholeText(t *testing.T) {
	for _, text := range []string{
		"USE_A:BOOL=ON\r\nUSE_B:BOOL=OFF\rUSE_C:STRING=x\vUSE_D:BOOL=1\fUSE_E:BOOL=2\x1cUSE_F:BOOL=3\x1dUSE_G:BOOL=4\x1eUSE_H:BOOL=5",
		"USE_A:STRING=a\u0085USE_B:STRING=b\u2028USE_C:STRING=c\u2029USE_D:STRING=d",
		"USE_A:STRING=\xff\xe2\x82\nUSE_B:STRING=\xe2\x82\xac\n  USE_C:BOOL=ON  \n// USE_D:BOOL=ON\n#USE_E:BOOL=ON\nUSE_A:STRING=again",
		"no newline at the end USE_X:BOOL=1\nHIP_VERSION:STRING=a=b",
	} {
		checkCMakeStream(t, text)
	}
}

func FuzzCMakeCacheStream(f *testing.F) {
	f.Add("USE_A:BOOL=ON\r\nUSE_B:STRING=\xe2\x82\u2028ROCM_X:PATH=/opt")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		checkCMakeStream(t, text)
	})
}

// TestCMakeCacheCaps: a cache far past the caps keeps at most
// cmakeMaxEntries entries and cmakeMaxBytes bytes, skips an over-long line
// without holding it, and says how many allowlisted entries it dropped.
func TestCMakeCacheCaps(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("USE_LONG:STRING=" + strings.Repeat("x", 3*cmakeMaxLine) + "\n")   // dropped: over-long
	b.WriteString("OTHER_LONG:STRING=" + strings.Repeat("y", 3*cmakeMaxLine) + "\n") // not allowlisted: silent
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "USE_E%04d:BOOL=ON\n", i) // past 1024 names: 476 dropped
	}
	b.WriteString("USE_E0001:BOOL=OFF\n") // an overwrite within the caps
	c, err := scanCMakeCache(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.entries) != cmakeMaxEntries || c.dropped != 1+476 || c.entries["USE_E0001"].Value != "OFF" {
		t.Errorf("%d entries, %d dropped, USE_E0001=%q", len(c.entries), c.dropped, c.entries["USE_E0001"].Value)
	}
	if _, ok := c.entries["USE_LONG"]; ok {
		t.Error("over-long entry kept")
	}

	b.Reset()
	val := strings.Repeat("v", cmakeMaxLine-100)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "ROCM_P%02d:PATH=%s\n", i, val)
	}
	c, _ = scanCMakeCache(strings.NewReader(b.String()))
	if c.bytes > cmakeMaxBytes || c.dropped == 0 || len(c.entries)+c.dropped != 40 {
		t.Errorf("bytes %d (cap %d), %d kept, %d dropped", c.bytes, cmakeMaxBytes, len(c.entries), c.dropped)
	}

	// Through the block: the reason, in the spec's style.
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "build"), 0o755)
	os.WriteFile(filepath.Join(src, "build/CMakeCache.txt"), []byte(b.String()), 0o644)
	s, _ := toolState(t, nil)
	s.root = machine.NewFS("/", "/", false)
	cc := collectCMakeCache(s, "source", &src)
	if len(cc.Entries) != len(c.entries) {
		t.Errorf("%d entries through the block, %d scanned", len(cc.Entries), len(c.entries))
	}
	want := fmt.Sprintf("pytorch_build.cmake_cache: dropped %d allowlisted entry(ies) of %s/build/CMakeCache.txt past the caps (1024 entries, 1048576 bytes of names, types and values, lines of 65536 bytes)", c.dropped, src)
	wantReasons(t, s, want)
}
