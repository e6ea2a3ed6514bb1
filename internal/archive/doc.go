// Package archive is the capture archive (docs/capture.md): a Recorder
// (recorder.go) that watches an internal/machine FS and wraps the
// machine.Seams of a collection to write what they answered as a
// fake-root archive (internal/fakeroot), sealed so that a cut or damaged
// copy is told from a whole one (seal.go); a Replay (replay.go) that
// answers the same Seams from one on any machine; and what a detached
// child's Recorder hands back to the probe's (detached_record.go). It
// imports no collector: what a capture needs to know of them comes in as
// one Policy, which package probe builds (docs/design-notes.md, "The
// probed machine").
package archive
