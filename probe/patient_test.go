package probe

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// patience bounds the commands of the tests that are not about timeouts;
// it only guards against a hang.
const patience = 2 * time.Minute

// patientRunner runs commands as ExecRunner does with every timeout raised
// to patience: the tests that use it are not about timeouts, and on a
// loaded machine a fake tool may take seconds to start, which must not
// change what the test sees. It checks that no command asks to run
// unbounded.
type patientRunner struct{ t *testing.T }

func (r patientRunner) Run(ctx context.Context, c Command) Result {
	if c.Timeout <= 0 {
		r.t.Errorf("%q runs without a timeout", c.Argv)
	}
	c.Timeout = max(c.Timeout, patience)
	return ExecRunner{}.Run(ctx, c)
}

// TestPatientRunner: a command slower than the timeout it asks for is not
// cut short (the scenario and Buck tests rely on it).
func TestPatientRunner(t *testing.T) {
	r := patientRunner{t}.Run(context.Background(), Command{Path: sh(t, "sleep 0.2; echo done"), Argv: []string{"slow"}, Timeout: 50 * time.Millisecond})
	if r.Err != nil || string(r.Stdout) != "done\n" {
		t.Errorf("got %+v", r)
	}
}

// sh writes script as an executable /bin/sh tool in a temp directory.
func sh(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
