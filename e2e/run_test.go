package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

// run is the whole program, as main.run in package main is, behind the
// built binary (staticProbe): args run in this process's working
// directory and environment (t.Chdir and t.Setenv apply) with its stdin,
// and the exit status is returned. sigs must be nil: a test that signals
// the binary starts it itself (startProbe). A failure to build or start
// the binary is written to stderr with exit status -1.
func run(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) int {
	if sigs != nil {
		panic("run: a test that signals the binary starts it with startProbe")
	}
	bin, err := staticProbe()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return -1
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err = cmd.Run()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && ctx.Err() == nil {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s %q: %v\n", bin, args, err)
		return -1
	}
	return 0
}
