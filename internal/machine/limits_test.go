package machine

import (
	"strings"
	"syscall"
	"testing"
)

// TestLowLimits: a soft RLIMIT_NOFILE under the threshold is named; the
// limits this test runs under (raised by the os package at start) are not.
func TestLowLimits(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip("getrlimit: ", err)
	}
	if old.Cur < lowNofile {
		t.Skipf("RLIMIT_NOFILE is already %d", old.Cur)
	}
	if why, low := LowLimits(); strings.Contains(why, "RLIMIT_NOFILE") || low && why == "" {
		t.Errorf("LowLimits = %q, %v under RLIMIT_NOFILE %d", why, low, old.Cur)
	}
	lowered := syscall.Rlimit{Cur: lowNofile - 1, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
		t.Skip("setrlimit: ", err)
	}
	why, low := LowLimits()
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal("restoring RLIMIT_NOFILE: ", err)
	}
	if !low || !strings.Contains(why, "RLIMIT_NOFILE 255") {
		t.Errorf("LowLimits = %q, %v; want RLIMIT_NOFILE 255 named", why, low)
	}
	if got := join("RLIMIT_NPROC 10", "RLIMIT_AS 1"); got != "RLIMIT_NPROC 10, RLIMIT_AS 1" {
		t.Errorf("join = %q", got)
	}
}
