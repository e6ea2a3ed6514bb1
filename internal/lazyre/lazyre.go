// Package lazyre holds regular expressions that are compiled on their first
// use instead of when the program starts. A default capture cannot start
// its Python helper before the packages are initialised, so every
// expression compiled then delays the whole run; most runs need only a few
// of them (docs/python.md, "Speed").
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call and returns
// that one *regexp.Regexp on every call. It panics on that first call when
// expr is invalid, as regexp.MustCompile would.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
