// Package testtree writes the small file trees tests build a machine root
// from, one spec a path: "name" a file whose content is its name, "name/"
// a directory, "name -> target" a symbolic link. Only tests import it.
package testtree

import (
	"os"
	"path/filepath"
	"strings"
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

// Script writes script as an executable /bin/sh tool in a temporary
// directory of tb and returns its path.
func Script(tb testing.TB, script string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "tool")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return p
}
