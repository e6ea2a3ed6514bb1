package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/machine"
)

// TestCMakeCacheCaps: through the block, a cache past the caps keeps what
// internal/source kept and says, in the spec's style, how many
// allowlisted entries were dropped.
func TestCMakeCacheCaps(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	val := strings.Repeat("v", cmakeMaxLine-100)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "ROCM_P%02d:PATH=%s\n", i, val)
	}
	b.WriteString("BORING_NOT_ALLOWLISTED:STRING=" + strings.Repeat("y", 3*cmakeMaxLine) + "\n") // silent
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "build"), 0o755)
	os.WriteFile(filepath.Join(src, "build/CMakeCache.txt"), []byte(b.String()), 0o644)
	s, _ := toolState(t, nil)
	s.root = machine.NewFS("/", "/", false)
	cc := collectCMakeCache(s, "source", &src)
	// 1 MiB of names, types and values holds 16 of the 64 KiB values.
	if kept := len(cc.Entries); kept != cmakeMaxBytes/(cmakeMaxLine-100+len("ROCM_P00PATH")) {
		t.Errorf("%d entries through the block", kept)
	}
	want := fmt.Sprintf("pytorch_build.cmake_cache: dropped %d allowlisted entry(ies) of %s/build/CMakeCache.txt past the caps (1024 entries, 1048576 bytes of names, types and values, lines of 65536 bytes)", 40-len(cc.Entries), src)
	wantReasons(t, s, want)
}
