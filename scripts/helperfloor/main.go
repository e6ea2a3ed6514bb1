// Command helperfloor is the least a Go capture with the Python helper
// does, for scripts/bench-wall.sh's "Go floor" row: start, run
// `PYTHON -` on the helper payload (a memory file holding the coding line
// and probe/python_helper.stdin, as the probe feeds it), read its stdout,
// and write that to OUT through a temporary file, fsync and rename. No
// collection, no document: what it costs over `python -c pass` is the
// floor of the probe's own overhead on that machine (docs/python.md,
// "Speed").
//
//	helperfloor OUT PYTHON PAYLOAD
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"aorta-probe/internal/machine"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: helperfloor OUT PYTHON PAYLOAD")
		os.Exit(2)
	}
	out, python, payload := os.Args[1], os.Args[2], os.Args[3]
	if err := run(out, python, payload); err != nil {
		fmt.Fprintln(os.Stderr, "helperfloor:", err)
		os.Exit(1)
	}
}

func run(out, python, payload string) error {
	text, err := os.ReadFile(payload)
	if err != nil {
		return err
	}
	stdin, err := memfd(append([]byte("# -*- coding: latin-1 -*-\n"), text...))
	if err != nil {
		return err
	}
	defer stdin.Close()
	var stdout bytes.Buffer
	cmd := exec.Command(python, "-")
	cmd.Stdin, cmd.Stdout = stdin, &stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s -: %w", python, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".helperfloor-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(stdout.Bytes()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// memfd is a memory file holding b at offset 0 (machine.Memfd).
func memfd(b []byte) (*os.File, error) {
	f, err := machine.Memfd("helperfloor")
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
