// Package testtree writes the small file trees tests build a machine root
// from, one spec a path: "name" a file whose content is its name, "name/"
// a directory, "name -> target" a symbolic link. Only tests import it.
package testtree

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Make creates each spec under root, with its parent directories.
func Make(tb testing.TB, root string, specs ...string) {
	tb.Helper()
	for _, s := range specs {
		name, target, isLink := strings.Cut(s, " -> ")
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		var err error
		switch {
		case isLink:
			err = os.Symlink(target, p)
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(p, 0o755)
		default:
			err = os.WriteFile(p, []byte(name), 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// Files writes each file (a path under root → its content) with its
// parent directories; a content starting with "#!" is an executable
// script (mode 0755, written with WriteFile), every other file mode 0644.
func Files(tb testing.TB, root string, files map[string]string) {
	tb.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(body, "#!") {
			mode = 0o755
		}
		if err := WriteFile(p, []byte(body), mode); err != nil {
			tb.Fatal(err)
		}
	}
}

// Script writes script as an executable /bin/sh tool in a temporary
// directory of tb and returns its path.
func Script(tb testing.TB, script string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "tool")
	if err := WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return p
}

// WriteFile is os.WriteFile holding syscall.ForkLock, so that no child
// the test process forks meanwhile inherits the file open for writing. A
// tool a test writes and then runs would otherwise fail to start with
// ETXTBSY ("Text file busy") whenever a parallel test's child still held
// that descriptor between its fork and its exec. Every executable a test
// writes goes through it.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(name, data, perm)
}
