package machine

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hogEnv makes TestMemoryHog, run as a child of TestMemoryLimit, allocate
// and touch memory until it fails.
const hogEnv = "AORTA_MACHINE_TEST_HOG"

// TestMemoryHog is the fake tool of TestMemoryLimit: the test binary run
// again, touching 1 MiB after 1 MiB (as a tool reading an endless line
// grows its buffer) until the Go runtime cannot map more and dies.
func TestMemoryHog(t *testing.T) {
	if os.Getenv(hogEnv) == "" {
		t.Skip("the fake tool of TestMemoryLimit, run only as its child")
	}
	var keep [][]byte
	for range 4096 { // 4 GiB: past any limit the test sets
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = 1
		}
		keep = append(keep, b)
	}
	t.Fatalf("allocated %d MiB without a limit", len(keep))
}

// TestMemoryLimit: every command starts under an RLIMIT_DATA soft limit
// (the default, or its own; the probe's own limit unchanged after), and a
// tool that grows past it is stopped: it fails, MemoryStopped is set and
// the last stderr line says so. With a negative limit the child has the
// probe's.
func TestMemoryLimit(t *testing.T) {
	ctx := context.Background()
	limits := sh(t, `grep '^Max data size' /proc/self/limits`)
	own, _ := os.ReadFile("/proc/self/limits")
	for _, tc := range []struct {
		limit int64
		want  string
	}{{0, strconv.Itoa(DefaultMemoryLimit)}, {192 << 20, strconv.Itoa(192 << 20)}, {-1, "unlimited"}} {
		res := ExecRunner{}.Run(ctx, Command{Path: limits, Argv: []string{"limits"}, MemoryLimit: tc.limit, Timeout: 5 * time.Second})
		if f := strings.Fields(string(res.Stdout)); res.Err != nil || len(f) < 4 || f[3] != tc.want {
			if tc.limit < 0 && !strings.Contains(string(own), "Max data size             unlimited") {
				continue // the test itself runs under a limit
			}
			t.Errorf("limit %d: the child's soft limit %q (%v), want %s", tc.limit, res.Stdout, res.Err, tc.want)
		}
	}
	if now, _ := os.ReadFile("/proc/self/limits"); string(now) != string(own) {
		t.Errorf("the probe's own limits changed:\n%s\nnow\n%s", own, now)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(hogEnv, "1")
	res := ExecRunner{}.Run(ctx, Command{Path: exe, Argv: []string{"hog", "-test.run=^TestMemoryHog$"}, MemoryLimit: 192 << 20, Timeout: 20 * time.Second})
	lines := strings.Split(strings.TrimSpace(string(res.Stderr)), "\n")
	last := lines[len(lines)-1]
	if res.Err == nil || !res.MemoryStopped || !strings.HasPrefix(last, "aorta-probe: stopped by its memory limit (RLIMIT_DATA 192 MiB; peak RSS ") {
		t.Errorf("the hog: %v, stopped %v, last stderr line %q", res.Err, res.MemoryStopped, last)
	}
}

// TestAtMemoryLimit: what counts as a tool stopped by its limit.
func TestAtMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		limit, rss int64
		stderr     string
		want       bool
	}{
		{256 << 20, 200 << 20, "", true},
		{256 << 20, 10 << 20, "Traceback …\nMemoryError\n", true},
		{256 << 20, 10 << 20, "terminate called after throwing an instance of 'std::bad_alloc'", true},
		{256 << 20, 10 << 20, "fatal error: runtime: out of memory\n\ngoroutine 1:\n", true},
		{256 << 20, 10 << 20, "usage: tool\n", false},
		{-1, 300 << 20, "MemoryError\n", false},
	} {
		if got := atMemoryLimit(tc.limit, tc.rss, []byte(tc.stderr)); got != tc.want {
			t.Errorf("atMemoryLimit(%d, %d, %q) = %v", tc.limit, tc.rss, tc.stderr, got)
		}
	}
}

// BenchmarkMemoryLimit is the cost of the limit per command: /bin/true
// run with the default limit and without (docs/design-notes.md).
func BenchmarkMemoryLimit(b *testing.B) {
	for _, bc := range []struct {
		name  string
		limit int64
	}{{"limited", 0}, {"unlimited", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if res := (ExecRunner{}).Run(context.Background(), Command{Path: "/bin/true", Argv: []string{"true"}, MemoryLimit: bc.limit}); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// BenchmarkStartLimited is the limit's own system calls, without the
// fork: startLimited around a start that does nothing.
func BenchmarkStartLimited(b *testing.B) {
	for b.Loop() {
		startLimited(func() error { return nil }, func() int { return 0 }, DefaultMemoryLimit)
	}
}
