package probe

import (
	"testing"
	"time"
)

// TestBuckTimeout: --buck-timeout when given, else DefaultBuckTimeout.
func TestBuckTimeout(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		0: DefaultBuckTimeout, -time.Second: DefaultBuckTimeout, 3 * time.Second: 3 * time.Second,
	} {
		if got := (BuckOptions{Timeout: in}).timeout(); got != want {
			t.Errorf("timeout %v: %v, want %v", in, got, want)
		}
	}
}
