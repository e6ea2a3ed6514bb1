// Package machine is the probed machine as a collection reaches it: its
// filesystem under a root (fs.go: openat2 with RESOLVE_IN_ROOT, or the
// portable component walk; text.go: read-text and markers), the
// commands it runs (run.go: no shell, the search path's absolute entries,
// stdin /dev/null, its own process group, killed at its timeout, output
// capped), the reaping of what they leave behind (reap.go), the detached
// child a read that may never return runs in (detached.go), and the Seams
// of a collection besides its files (seams.go). It knows nothing of the
// capture archive: internal/archive watches an FS (Watcher) and wraps the
// Seams to record one, and answers the same Seams from one
// (docs/design-notes.md, "The probed machine").
package machine
