package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestInterruptible: a body that returns gives its status; a signal
// before the body writes ends the command at once with 128+N and one
// line naming the signal; once the body writes, the signal cancels the
// write and the body's own status stands.
func TestInterruptible(t *testing.T) {
	var stderr bytes.Buffer
	if code := Interruptible("validate", nil, &stderr, func(*Watch) int { return 3 }); code != 3 || stderr.Len() != 0 {
		t.Errorf("returned: exit %d, stderr %q", code, stderr.String())
	}

	sigs := make(chan os.Signal, 1)
	block := make(chan struct{})
	defer close(block)
	sigs <- syscall.SIGINT
	code := Interruptible("diff", sigs, &stderr, func(*Watch) int { <-block; return 0 })
	if code != 130 || stderr.String() != "aorta-probe diff: interrupted by SIGINT\n" {
		t.Errorf("signal before writing: exit %d, stderr %q", code, stderr.String())
	}

	stderr.Reset()
	sigs2 := make(chan os.Signal, 1)
	code = Interruptible("", sigs2, &stderr, func(w *Watch) int {
		ctx, ok := w.BeginWrite()
		if !ok {
			return 9
		}
		sigs2 <- syscall.SIGTERM
		<-ctx.Done()
		if !errors.Is(w.Collect.Err(), context.Canceled) || context.Cause(ctx).Error() != "interrupted by SIGTERM" {
			return 8
		}
		return 1
	})
	if code != 1 || stderr.Len() != 0 {
		t.Errorf("signal while writing: exit %d, stderr %q", code, stderr.String())
	}
}

// TestBeginWriteAfterSignal: a write asked for once a signal came is
// refused.
func TestBeginWriteAfterSignal(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	w := WatchSignals(sigs)
	defer w.Stop()
	sigs <- syscall.SIGHUP
	<-w.Collect.Done()
	if _, ok := w.BeginWrite(); ok {
		t.Error("BeginWrite after a signal: ok")
	}
	if got := context.Cause(w.Collect).Error(); got != "interrupted by SIGHUP" {
		t.Errorf("cause %q", got)
	}
}
