package probe

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aorta-probe/internal/machine"
)

// countingRunner answers every command with its argv on stdout, counting
// the starts per argv; a command whose argv[0] is in block waits for
// release first, and one named "panic" panics.
type countingRunner struct {
	mu      sync.Mutex
	starts  map[string]int
	block   map[string]bool
	entered chan string
	release chan struct{}
}

func (r *countingRunner) Run(_ context.Context, c machine.Command) machine.Result {
	key := strings.Join(c.Argv, " ")
	r.mu.Lock()
	r.starts[key]++
	r.mu.Unlock()
	if c.Argv[0] == "panic" {
		panic("runner panics")
	}
	if r.block[c.Argv[0]] {
		r.entered <- key
		<-r.release
	}
	return machine.Result{Stdout: []byte(key)}
}

func onceState(t *testing.T, r *countingRunner) *state {
	t.Helper()
	c := newCollector(context.Background(), Options{Seams: machine.Seams{Root: t.TempDir(), Cwd: "/", Runner: r}, Now: fixedNow})
	return &state{collector: c, name: "first"}
}

// TestRunOnceShares: an identical command asked again is answered from
// the first run; any difference in what it is given (argv, directory,
// environment, stdin, timeout) runs it again; streaming and file-writing
// commands always run.
func TestRunOnceShares(t *testing.T) {
	r := &countingRunner{starts: map[string]int{}}
	s := onceState(t, r)
	cmd := func(mod func(*machine.Command)) machine.Command {
		c := machine.Command{Path: "/bin/tool", Argv: []string{"tool", "a"}, Timeout: time.Second}
		if mod != nil {
			mod(&c)
		}
		return c
	}
	variants := []func(*machine.Command){
		nil,
		func(c *machine.Command) { c.Argv = []string{"tool", "b"} },
		func(c *machine.Command) { c.Argv = []string{"tool", "a", ""} },
		func(c *machine.Command) { c.Path = "/usr/bin/tool" },
		func(c *machine.Command) { c.Dir = "/tmp" },
		func(c *machine.Command) { c.Env = []string{"X=1"} },
		func(c *machine.Command) { c.Stdin = []byte{} },
		func(c *machine.Command) { c.Stdin = []byte("in") },
		func(c *machine.Command) { c.Timeout = 2 * time.Second },
		func(c *machine.Command) { c.MaxOutput = 10 },
		func(c *machine.Command) { c.MaxStderr = 10 },
	}
	keys := map[string]bool{}
	for i, v := range variants {
		k, ok := onceKey(cmd(v))
		if !ok || keys[k] {
			t.Fatalf("variant %d: key %q shareable %v, seen before %v", i, k, ok, keys[k])
		}
		keys[k] = true
	}
	for range 3 {
		for _, v := range variants {
			if got := s.run(cmd(v)); got.Err != nil {
				t.Fatal(got.Err)
			}
		}
	}
	if n := r.starts["tool a"]; n != 9 { // nine variants have argv "tool a"
		t.Errorf("tool a started %d times, want once per distinct command (9)", n)
	}
	for _, c := range []machine.Command{
		cmd(func(c *machine.Command) { c.Argv = []string{"stream"}; c.StdinFrom = strings.NewReader("") }),
		cmd(func(c *machine.Command) { c.Argv = []string{"stream"}; c.StdoutTo = &bytes.Buffer{} }),
		cmd(func(c *machine.Command) { c.Argv = []string{"stream"}; c.OutFile = "/tmp/x" }),
	} {
		if _, ok := onceKey(c); ok {
			t.Errorf("%+v is shareable", c)
		}
		s.run(c)
		s.run(c)
	}
	if n := r.starts["stream"]; n != 6 {
		t.Errorf("streaming commands started %d times, want 6", n)
	}
	merged := mergeShared(s.commands)
	if len(merged) != len(variants)+6 {
		t.Errorf("%d records, want %d", len(merged), len(variants)+6)
	}
	for _, c := range merged[:len(variants)] {
		if c.SharedBy == nil || strings.Join(*c.SharedBy, ",") != "first,first,first" {
			t.Errorf("%q shared_by %v", c.Argv, c.SharedBy)
		}
	}
	for _, c := range merged[len(variants):] {
		if c.SharedBy != nil {
			t.Errorf("%q shared_by %v", c.Argv, *c.SharedBy)
		}
	}
}

// TestRunOnceConcurrent: a second ask while the first run is in flight
// waits for it and gets its result; the record is kept where it was first
// asked in list order (the earlier probe), whichever asker ran it.
func TestRunOnceConcurrent(t *testing.T) {
	r := &countingRunner{starts: map[string]int{}, block: map[string]bool{"slow": true},
		entered: make(chan string, 4), release: make(chan struct{})}
	s := onceState(t, r)
	later := &state{collector: s.collector, name: "later"}
	c := machine.Command{Path: "/bin/slow", Argv: []string{"slow"}}
	done := make(chan machine.Result, 2)
	go func() { done <- later.run(c) }() // the later probe starts it
	<-r.entered
	var waiting atomic.Bool
	go func() { waiting.Store(true); done <- s.run(c) }()
	for !waiting.Load() {
		time.Sleep(time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("an ask returned before the run ended")
	case <-time.After(20 * time.Millisecond):
	}
	close(r.release)
	a, b := <-done, <-done
	if string(a.Stdout) != "slow" || string(b.Stdout) != "slow" {
		t.Errorf("results %q, %q", a.Stdout, b.Stdout)
	}
	if n := r.starts["slow"]; n != 1 {
		t.Errorf("started %d times", n)
	}
	select {
	case k := <-r.entered:
		t.Errorf("%s entered the runner twice", k)
	default:
	}
	merged := mergeShared(append(s.allCommands(), later.allCommands()...))
	if len(merged) != 1 || merged[0].SharedBy == nil || strings.Join(*merged[0].SharedBy, ",") != "first,later" {
		t.Errorf("merged %+v", merged)
	}
}

// TestRunOncePanic: when the first asker's run panics, the panic reaches
// it (its probe's recover reports it) and a later ask runs the command
// itself instead of waiting forever.
func TestRunOncePanic(t *testing.T) {
	r := &countingRunner{starts: map[string]int{}}
	s := onceState(t, r)
	c := machine.Command{Path: "/bin/panic", Argv: []string{"panic"}}
	for i := range 2 {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ask %d did not panic", i)
				}
			}()
			s.run(c)
		}()
	}
	if n := r.starts["panic"]; n != 2 {
		t.Errorf("started %d times, want 2", n)
	}
}
