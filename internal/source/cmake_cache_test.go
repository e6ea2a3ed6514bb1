package source

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"testing"
	"testing/iotest"

	"aorta-probe/internal/pyfmt"
)

// testLimits keeps USE_, ROCM_ and HIP_VERSION names within the probe's
// caps.
var testLimits = CMakeCacheLimits{
	Keep: func(n string) bool {
		return strings.HasPrefix(n, "USE_") || strings.HasPrefix(n, "ROCM_") || strings.HasPrefix(n, "HIP_VERSION")
	},
	MaxEntries: 1024, MaxBytes: 1 << 20, MaxLine: 64 << 10,
}

// entriesText is "NAME=TYPE:VALUE;" per entry, sorted by name.
func entriesText(m map[string]CMakeEntry) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + "=" + m[n].Type + ":" + m[n].Value + ";")
	}
	return b.String()
}

// wholeTextCMakeCache is the pytorch_build.cmake_cache rule (docs/python.md)
// applied to the whole decoded text at once, as the Python probe does: the
// oracle the streaming scanner must agree with (below the caps).
func wholeTextCMakeCache(b []byte) map[string]CMakeEntry {
	m := map[string]CMakeEntry{}
	for _, line := range pyfmt.Splitlines(pyfmt.DecodeReplace(b)) {
		line = pyfmt.Strip(line)
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
			continue
		}
		if sm := cmakeLineRe().FindStringSubmatch(line); sm != nil && testLimits.Keep(sm[1]) {
			m[sm[1]] = CMakeEntry{Type: sm[2], Value: sm[3]}
		}
	}
	return m
}

func checkCMakeStream(t *testing.T, text string) {
	t.Helper()
	want := entriesText(wholeTextCMakeCache([]byte(text)))
	// One byte per read: every line break and UTF-8 sequence is cut.
	c, err := ParseCMakeCache(iotest.OneByteReader(strings.NewReader(text)), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got := entriesText(c.Entries); got != want || c.Dropped != 0 {
		t.Errorf("%q:\n got %s (dropped %d)\nwant %s", text, got, c.Dropped, want)
	}
}

func TestCMakeCacheStreamMatchesWholeText(t *testing.T) {
	for _, text := range []string{
		"USE_A:BOOL=ON\r\nUSE_B:BOOL=OFF\rUSE_C:STRING=x\vUSE_D:BOOL=1\fUSE_E:BOOL=2\x1cUSE_F:BOOL=3\x1dUSE_G:BOOL=4\x1eUSE_H:BOOL=5",
		"USE_A:STRING=a\u0085USE_B:STRING=b\u2028USE_C:STRING=c\u2029USE_D:STRING=d",
		"USE_A:STRING=\xff\xe2\x82\nUSE_B:STRING=\xe2\x82\xac\n  USE_C:BOOL=ON  \n// USE_D:BOOL=ON\n#USE_E:BOOL=ON\nUSE_A:STRING=again",
		"no newline at the end USE_X:BOOL=1\nHIP_VERSION:STRING=a=b",
		"lower:BOOL=ON\nUSE_X:bool=ON\nOTHER:STRING=kept-out\nUSE_EMPTY:STRING=\n",
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

// TestCMakeCacheCaps: a cache far past the limits keeps at most
// MaxEntries entries and MaxBytes bytes, skips an over-long line without
// holding it, and counts the kept names it dropped.
func TestCMakeCacheCaps(t *testing.T) {
	t.Parallel()
	lim := testLimits
	var b strings.Builder
	b.WriteString("USE_LONG:STRING=" + strings.Repeat("x", 3*lim.MaxLine) + "\n")   // dropped: over-long
	b.WriteString("OTHER_LONG:STRING=" + strings.Repeat("y", 3*lim.MaxLine) + "\n") // not kept: silent
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "USE_E%04d:BOOL=ON\n", i) // past 1024 names: 476 dropped
	}
	b.WriteString("USE_E0001:BOOL=OFF\n") // an overwrite within the caps
	c, err := ParseCMakeCache(strings.NewReader(b.String()), lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != lim.MaxEntries || c.Dropped != 1+476 || c.Entries["USE_E0001"].Value != "OFF" {
		t.Errorf("%d entries, %d dropped, USE_E0001=%q", len(c.Entries), c.Dropped, c.Entries["USE_E0001"].Value)
	}
	if _, ok := c.Entries["USE_LONG"]; ok {
		t.Error("over-long entry kept")
	}

	b.Reset()
	val := strings.Repeat("v", lim.MaxLine-100)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "ROCM_P%02d:PATH=%s\n", i, val)
	}
	c, _ = ParseCMakeCache(strings.NewReader(b.String()), lim)
	if c.Bytes > lim.MaxBytes || c.Dropped == 0 || len(c.Entries)+c.Dropped != 40 {
		t.Errorf("bytes %d (cap %d), %d kept, %d dropped", c.Bytes, lim.MaxBytes, len(c.Entries), c.Dropped)
	}
}

// TestCMakeCacheRead: through the FS, an unreadable cache is ErrRead over
// the machine's error.
func TestCMakeCacheRead(t *testing.T) {
	src := fakeFS(t, "-- src/build/CMakeCache.txt --\nUSE_ROCM:BOOL=ON\n-- src/build/dir/CMakeCache.txt [dir] --\n")
	c, err := src.CMakeCache("/src/build/CMakeCache.txt", testLimits)
	if err != nil || entriesText(c.Entries) != "USE_ROCM=BOOL:ON;" {
		t.Fatalf("CMakeCache = %+v, %v", c, err)
	}
	for p, want := range map[string]error{"/src/build/none": fs.ErrNotExist, "/src/build/dir/CMakeCache.txt": nil} {
		c, err := src.CMakeCache(p, testLimits)
		if c != nil || !errors.Is(err, ErrRead) || want != nil && !errors.Is(err, want) {
			t.Errorf("CMakeCache(%s) = %+v, %v; want ErrRead", p, c, err)
		}
	}
}
