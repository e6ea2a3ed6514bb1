// Package machine is the probed machine as a collection reaches it: its
// filesystem under a root (fs.go: openat2 with RESOLVE_IN_ROOT, or the
// portable component walk; text.go: read-text and markers), the
// commands it runs (run.go: no shell, the search path's absolute entries,
// stdin /dev/null, its own process group, killed at its timeout, output
// capped) and the reaping of what they leave behind (reap.go), and the
// two ways of standing in for a machine: a Recorder (recorder.go) that
// watches an FS and wraps the Seams of a collection to write a capture
// archive, and a Replay (replay.go) that answers the same Seams from one
// (docs/capture.md). It imports no collector: what a capture needs to know
// of them comes in as one Policy, which package probe builds
// (docs/design-notes.md, "The probed machine").
package machine
