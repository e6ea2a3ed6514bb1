package output

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestBoundedSignal: a signal during a write under way lets it finish (a
// reader taking the document gets all of it); a write that stays blocked
// is abandoned with the signal as the error.
func TestBoundedSignal(t *testing.T) {
	far := time.Now().Add(time.Hour)
	sig := errors.New("interrupted by SIGTERM")

	ctx, cancel := context.WithCancelCause(context.Background())
	release := make(chan struct{})
	started := make(chan struct{})
	go func() { <-started; cancel(sig); close(release) }()
	err := bounded(ctx, far, func() error { close(started); <-release; return nil })
	if err != nil {
		t.Errorf("a write that finished after the signal: %v", err)
	}

	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(sig)
	block := make(chan struct{})
	defer close(block)
	err = bounded(ctx, far, func() error { <-block; return nil })
	if !errors.Is(err, sig) || err.Error() != "interrupted by SIGTERM" {
		t.Errorf("a blocked write after a signal: %v", err)
	}

	err = bounded(context.Background(), time.Now(), func() error { <-block; return nil })
	if err != errNoReader {
		t.Errorf("a blocked write at the deadline: %v", err)
	}
}
