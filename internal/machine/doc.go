// Package machine is the probed machine as a collection reaches it: its
// filesystem under a root (fs.go: openat2 with RESOLVE_IN_ROOT, or the
// portable component walk; text.go: read-text and markers), the
// commands it runs (run.go: no shell, the search path's absolute entries,
// stdin /dev/null, its own process group, killed at its timeout, output
// capped) and the reaping of what they leave behind (reap.go). It imports
// no collector: package probe builds on it (docs/design-notes.md,
// "Layout and data flow").
package machine
