package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// Watch turns the signals into the two things they end: the
// collection (the first signal, however early it came) and a write that
// waits for its reader (a signal received once the write began: one that
// ended the collection must not also abandon the document it produced).
type Watch struct {
	// Collect ends with the first signal (its cause an interruption
	// naming the signal) or when Stop is called.
	Collect context.Context
	done    chan struct{}

	mu       sync.Mutex
	write    context.Context // nil until writing is first called
	endWrite context.CancelCauseFunc
}

// WatchSignals watches sigs (nil: none) until Stop.
func WatchSignals(sigs <-chan os.Signal) *Watch {
	ctx, endCollect := context.WithCancelCause(context.Background())
	w := &Watch{Collect: ctx, done: make(chan struct{})}
	go func() {
		defer endCollect(nil)
		for {
			select {
			case s := <-sigs:
				err := interruptedError{s}
				endCollect(err)
				w.mu.Lock()
				if w.endWrite != nil {
					w.endWrite(err)
				}
				w.mu.Unlock()
			case <-w.done:
				return
			}
		}
	}()
	return w
}

// Writing returns the context of the write phase, which a signal received
// from now on cancels.
func (w *Watch) Writing() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.write == nil {
		w.write, w.endWrite = context.WithCancelCause(context.Background())
	}
	return w.write
}

// BeginWrite is Writing for a subcommand (Interruptible): ok is false
// when a signal already came, which then ends the command instead.
func (w *Watch) BeginWrite() (ctx context.Context, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.Collect.Err() != nil {
		return nil, false
	}
	if w.write == nil {
		w.write, w.endWrite = context.WithCancelCause(context.Background())
	}
	return w.write, true
}

// writeStarted reports whether Writing or BeginWrite was called.
func (w *Watch) writeStarted() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write != nil
}

// Stop ends the watch and the write phase.
func (w *Watch) Stop() {
	close(w.done)
	w.mu.Lock()
	if w.endWrite != nil {
		w.endWrite(nil)
	}
	w.mu.Unlock()
}

// interruptedError is the cause of a cancellation by a signal.
type interruptedError struct{ sig os.Signal }

func (e interruptedError) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(s os.Signal) string {
	switch s.String() {
	case "terminated":
		return "SIGTERM"
	case "interrupt":
		return "SIGINT"
	case "hangup":
		return "SIGHUP"
	}
	return s.String()
}

// Interruptible runs body, a subcommand that reads or writes documents,
// so that SIGINT, SIGTERM and SIGHUP stop it promptly whatever it waits
// for (a FIFO nobody writes, a read of a slow file): a signal that comes
// before body writes its output ends the command at once with one line
// on stderr, `aorta-probe NAME: interrupted by SIGTERM` (`aorta-probe:`
// for an empty NAME, the plain command), and the status
// of a shell's killed job, 128+N (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
// Once body writes (Watch.BeginWrite), the write ends the way the
// capture's does: finished, or abandoned output.SignalGrace after the
// signal with exit 1 (docs/usage.md, "Deadline and signals"). A body left
// blocked stays in its goroutine; the process exits right after.
func Interruptible(name string, sigs <-chan os.Signal, stderr io.Writer, body func(w *Watch) int) int {
	w := WatchSignals(sigs)
	defer w.Stop()
	done := make(chan int, 1)
	go func() { done <- body(w) }()
	select {
	case code := <-done:
		return code
	case <-w.Collect.Done():
		if w.writeStarted() {
			return <-done
		}
	}
	sig := syscall.SIGTERM
	if ie, ok := context.Cause(w.Collect).(interruptedError); ok {
		if s, ok := ie.sig.(syscall.Signal); ok {
			sig = s
		}
	}
	cmd := "aorta-probe"
	if name != "" {
		cmd += " " + name
	}
	fmt.Fprintf(stderr, "%s: interrupted by %s\n", cmd, signalName(sig))
	return 128 + int(sig)
}
